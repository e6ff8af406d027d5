// `pim sync`: two-way sync of the store with CalDAV calendars and CardDAV address books.
//
// Each run lists the collection (the entity tag of every resource: only what changed since the
// last run where the server keeps sync tokens, PIMStore+Listing.swift), compares it with
// what the last run left (SyncCollection.syncedResources) and with the records here, then reads
// what changed on the server (calendar-multiget / addressbook-multiget, imported through the dav
// feed mapping), deletes here what the server deleted, and sends what changed here (PUT with
// If-Match, new resources with If-None-Match: *; each with what the server's copy holds that pim
// does not, ResourceMerger) and what was deleted here (DELETE with If-Match). A resource changed
// on both sides is a conflict: left as it is on both unless the run prefers one side. Resources
// are compared by path (percent-decoded); a record is changed here when its modification time
// moved and the text it is sent as changed. The caller saves the context as one undo group.
import FeedImport
import Foundation
import ObjectGraph

/// Which side wins a conflict: a resource changed here and on the server since the last sync.
public enum SyncPreference: String, Sendable, CaseIterable {
    /// The server's version replaces the record here (a record deleted here comes back).
    case server
    /// The record here replaces the server's version (a resource deleted here is deleted there).
    case local
}

/// What syncing one collection did.
public struct SyncReport: Sendable {
    /// The collection's URL.
    public var collection: String
    /// Records added here from the server.
    public var added = 0
    /// Records here changed to the server's version.
    public var updated = 0
    /// Records deleted here because the server no longer has them.
    public var deleted = 0
    /// Records sent to the server (new there, or changed).
    public var sent = 0
    /// Resources deleted on the server because their records were deleted here.
    public var removed = 0
    /// Resources changed on both sides, left as they are (without a preference).
    public var conflicts: [String] = []
    /// Requests the server refused; the run went on without them.
    public var problems: [String] = []
    /// Resources the store refused (each with its reason); read again by the next run.
    public var refused: [String] = []
    /// The failure that stopped the run part way; what was done before it is kept.
    public var failure: PIMError?
    /// How the server listed the collection: whole, or only what changed since the last run.
    public var listing = SyncListing.whole
}

extension PIMStore {
    /// The collections `pim sync` syncs, in the order they were added.
    public func syncCollections() throws(PIMError) -> [SyncCollection] {
        var request = FetchRequest<SyncCollection>(entityName: "SyncCollection")
        request.sortDescriptors = [SortDescriptor(key: "added", ascending: true), SortDescriptor(key: "url", ascending: true)]
        return try fetch(request)
    }

    /// The collection named by its URL, or by a unique part of it.
    public func syncCollection(named reference: String) throws(PIMError) -> SyncCollection {
        let all = try syncCollections()
        if let exact = all.first(where: { $0.url == reference || $0.url == Self.collectionURLText(reference) }) { return exact }
        let matches = all.filter { ($0.url ?? "").contains(reference) || ($0.calendar ?? "") == reference }
        guard matches.count == 1 else {
            if matches.isEmpty { throw PIMError.noMatch("no sync collection \"\(reference)\" (pim sync list shows them)") }
            throw PIMError.usage("\"\(reference)\" names \(matches.count) sync collections:\n"
                                 + matches.map { "  \($0.url ?? "")" }.joined(separator: "\n"))
        }
        return matches[0]
    }

    /// A collection URL as pim keeps it: ending in a slash.
    static func collectionURLText(_ text: String) -> String { text.hasSuffix("/") ? text : text + "/" }

    /// Adds the calendar or address book at `url` to those `pim sync` syncs, after asking the
    /// server what it is (a URL above collections is refused, naming those under it). Events of
    /// a calendar are kept in pim's calendar `calendarName` (default: the collection's display
    /// name). Nothing is saved.
    public func addSyncCollection(_ url: URL, user: String?, passwordFile: String?, password: String?,
                                  calendarName: String?) throws(PIMError) -> SyncCollection {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw PIMError.usage("\(url.absoluteString): not an http or https URL")
        }
        let text = Self.collectionURLText(url.absoluteString)
        guard let base = URL(string: text) else { throw PIMError.usage("\(url.absoluteString): not a URL") }
        if try syncCollections().contains(where: { $0.url == text }) {
            throw PIMError.usage("\(text) is synced already (pim sync list)")
        }
        let client = DAVClient(user: user, password: password)
        let members = try propfind(client, base, depth: "1",
                                   properties: ["<d:resourcetype/>", "<d:displayname/>", "<c:supported-calendar-component-set/>"])
        let basePath = base.path
        guard let own = members.first(where: { URL(string: $0.href, relativeTo: base)?.path == basePath || $0.href == text }) ?? members.first,
              own.isCalendar || own.isAddressBook else {
            let found = try discoverCollections(client, base, under: members)
                .map { "  \($0.url.absoluteString) (\($0.member.isCalendar ? "calendar" : "address book"))" }
            throw PIMError.usage("\(text) is not a calendar or an address book"
                                 + (found.isEmpty ? "" : "; the account's are:\n" + found.joined(separator: "\n")))
        }
        let collection = SyncCollection(context: context)
        collection.url = text
        collection.kind = (own.isCalendar ? SyncCollectionKind.calendar : .addressBook).rawValue
        collection.components = own.components.isEmpty ? nil : own.components.joined(separator: ",")
        collection.displayName = own.displayName
        collection.user = user
        collection.passwordFile = passwordFile
        collection.added = now
        if own.isCalendar {
            let lastPart = base.lastPathComponent
            collection.calendar = calendarName ?? own.displayName ?? (lastPart.isEmpty ? "default" : lastPart)
        }
        return collection
    }

    /// The calendars and address books of the account `base` belongs to: those listed under it,
    /// and those in the home sets of its user's principal (RFC 4791 6.2.1, RFC 6352 7.1.1), which
    /// a server's root names (RFC 5397).
    private func discoverCollections(_ client: DAVClient, _ base: URL, under members: [DAVMember]) throws(PIMError) -> [(url: URL, member: DAVMember)] {
        var found: [(url: URL, member: DAVMember)] = []
        var seen: Set<String> = []
        func add(_ members: [DAVMember], relativeTo url: URL) {
            for member in members where member.isCalendar || member.isAddressBook {
                guard let absolute = URL(string: member.href, relativeTo: url)?.absoluteURL,
                      seen.insert(absolute.absoluteString).inserted else { continue }
                found.append((absolute, member))
            }
        }
        add(members, relativeTo: base)
        let principals = hrefProperty(client, base, "<d:current-user-principal/>", element: "current-user-principal")
        for principal in principals.compactMap({ URL(string: $0, relativeTo: base)?.absoluteURL }) {
            let homes = hrefProperty(client, principal, "<c:calendar-home-set/><r:addressbook-home-set/>",
                                         element: "calendar-home-set", "addressbook-home-set")
            for home in Set(homes).sorted().compactMap({ URL(string: $0, relativeTo: principal)?.absoluteURL }) {
                add(try propfind(client, home, depth: "1", properties: ["<d:resourcetype/>", "<d:displayname/>"]), relativeTo: home)
            }
        }
        return found
    }

    /// The hrefs inside the properties named `element` of `url` (PROPFIND, depth 0); none when the
    /// server does not answer it.
    private func hrefProperty(_ client: DAVClient, _ url: URL, _ properties: String, element names: String...) -> [String] {
        let body = Self.propfindBody(properties)
        // A server may refuse these to a user it does not know (Radicale without authentication).
        guard let response = try? client.send("PROPFIND", url, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                                              body: body),
              response.status == 207 else { return [] }
        return DAVMultistatus.hrefs(in: response.body, inside: Set(names))
    }

    /// Stops syncing `collection`. Its records stay here, still bound to their resources: adding
    /// the collection again takes them up where they were. Nothing is saved.
    public func removeSyncCollection(_ collection: SyncCollection) {
        context.delete(collection)
    }

    /// The password of `collection`: its password file's first line, else `environment`'s
    /// `PIM_SYNC_PASSWORD`.
    public func syncPassword(for collection: SyncCollection, environment: [String: String]) throws(PIMError) -> String? {
        try Self.syncPassword(file: collection.passwordFile, environment: environment)
    }

    /// The first line of the password file at `path`, else `environment`'s `PIM_SYNC_PASSWORD`.
    public static func syncPassword(file path: String?, environment: [String: String]) throws(PIMError) -> String? {
        guard let path else { return environment["PIM_SYNC_PASSWORD"] }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        } catch {
            throw PIMError.usage("\(path): cannot read the password file: \(error.localizedDescription)")
        }
    }

    /// How long `pim sync` waits, by default, for an answer to the requests on their way.
    public static let defaultSyncTimeout: TimeInterval = 120

    /// Syncs `collection` both ways (see the top of this file). Nothing is saved: the caller
    /// saves the context, also when the report has a ``SyncReport/failure`` (what was sent before
    /// it must be remembered). Throws, with the context to roll back, when nothing was sent yet.
    /// With `dryRun`, the server's changes are read into the context (to be rolled back) and
    /// nothing is sent: the report counts what would be.
    public func synchronize(_ collection: SyncCollection, prefer: SyncPreference?, password: String?,
                            dryRun: Bool = false, timeout: TimeInterval = PIMStore.defaultSyncTimeout) throws(PIMError) -> SyncReport {
        guard let urlText = collection.url, let base = URL(string: urlText) else {
            throw PIMError.usage("a sync collection without a URL")
        }
        let client = DAVClient(user: collection.user, password: password, timeout: timeout)
        var report = SyncReport(collection: urlText)
        func key(_ href: String) -> String { Self.hrefKey(href, base: base) }

        // What each side has, by href as compared (the path, percent-decoded): the server's
        // resources with their tags and hrefs as it writes them, the records bound to them here.
        let listed = try listResources(of: collection, client: client, base: base)
        var server = listed.resources.mapValues { (href: $0.href, etag: $0.etag) }
        report.listing = listed.listing
        var known = collection.syncedResources
        var local: [String: ManagedObject] = [:]
        for (href, record) in try syncedRecords(of: collection) {
            local[key(href)] = record
            // Named as the server names it, so that what it sends back finds the record.
            if let listed = server[key(href)]?.href, listed != href { record.setValue(listed, forKey: "externalID") }
        }
        let basePath = base.path(percentEncoded: true).hasSuffix("/") ? base.path(percentEncoded: true) : base.path(percentEncoded: true) + "/"
        let suffix = collection.collectionKind == .addressBook ? ".vcf" : ".ics"
        var fresh: [(href: String, record: ManagedObject)] = []
        for record in try unsyncedRecords(for: collection) {
            let name = ((record.value(forKey: "uuid") as? UUID) ?? UUID()).uuidString.lowercased()
            let href = basePath + name + suffix
            if server[key(href)] != nil || known[key(href)] != nil {
                // Sent before and unbound since (an undone sync): bound again, not sent as new.
                record.setValue(urlText, forKey: "source")
                record.setValue(server[key(href)]?.href ?? href, forKey: "externalID")
                local[key(href)] = record
            } else {
                fresh.append((href, record))
            }
        }

        // What to do with each resource. A record whose modification time moved is changed here
        // only if the text it would be sent as differs (a link to it from another record is not).
        var pulls: [String] = []
        var puts: [(key: String, href: String, record: ManagedObject, condition: PutCondition)] = []
        var remoteDeletes: [(key: String, href: String, etag: String)] = []
        var localDeletes: [(key: String, record: ManagedObject)] = []
        var inStep: [(key: String, record: ManagedObject)] = []
        func conflict(_ href: String, _ record: ManagedObject?, _ what: String) {
            report.conflicts.append("\(href)\(record.map { " (\(describe($0)))" } ?? ""): \(what)")
        }
        for href in Set(server.keys).union(local.keys).union(known.keys).sorted() {
            let listed = server[href], record = local[href], last = known[href]
            var changedHere = false
            if let record {
                if let last, Self.sameStamp(stamp(of: record), last.stamp) {
                    changedHere = false
                } else if let last, let digest = last.digest, digest == self.digest(of: record, in: collection) {
                    inStep.append((href, record))
                } else {
                    changedHere = true
                }
            }
            let changedThere = listed.map { last == nil || $0.etag != last!.etag } ?? false
            switch (listed, record) {
            case let (listed?, record?):
                if last == nil {
                    // Bound here before this collection remembered it (added again): the server's
                    // copy is the shared one.
                    if prefer == .local { puts.append((href, listed.href, record, .ifMatch(listed.etag))) } else { pulls.append(listed.href) }
                } else if changedHere && changedThere {
                    switch prefer {
                    case .server: pulls.append(listed.href)
                    case .local: puts.append((href, listed.href, record, .ifMatch(listed.etag)))
                    case nil: conflict(listed.href, record, "changed here and on the server")
                    }
                } else if changedThere {
                    pulls.append(listed.href)
                } else if changedHere {
                    puts.append((href, listed.href, record, .ifMatch(listed.etag)))
                } else if collection.collectionKind == .calendar, last?.alarms == nil || record is TaskItem && last?.comments == nil {
                    // Last synced before pim read alarms (or a to-do's comments as annotations):
                    // read once more, so that what other devices set is here too.
                    pulls.append(listed.href)
                }
            case let (listed?, nil):
                if last == nil {
                    pulls.append(listed.href)
                } else if !changedThere || prefer == .local {
                    remoteDeletes.append((href, listed.href, listed.etag))
                } else if prefer == .server {
                    pulls.append(listed.href)
                } else {
                    conflict(listed.href, nil, "deleted here, changed on the server")
                }
            case let (nil, record?):
                let own = record.value(forKey: "externalID") as? String ?? href
                if last == nil {
                    puts.append((href, own, record, .absent))
                } else if !changedHere || prefer == .server {
                    localDeletes.append((href, record))
                } else if prefer == .local {
                    puts.append((href, own, record, .absent))
                } else {
                    conflict(own, record, "changed here, deleted on the server")
                }
            case (nil, nil):
                known[href] = nil
            }
        }
        for (href, record) in fresh { puts.append((key(href), href, record, .absent)) }

        // The server's changes, then the deletions it made.
        let pulled = try pull(pulls, of: collection, client: client, base: base, report: &report)
        for (href, etag) in pulled.etags { server[key(href)] = (href, etag) }
        for (_, record) in localDeletes {
            report.deleted += 1
            context.delete(record)
        }
        context.processPendingChanges()

        if dryRun {
            report.sent = puts.count
            report.removed = remoteDeletes.count
            return report
        }

        // What changed here, each resource sent with what the server keeps of it that pim does
        // not hold (alarms, other attendees, properties of other programs), a few at once: parents
        // before their subtasks, so that a subtask's RELATED-TO names a resource already there. A
        // request that fails stops the run, keeping what was done (the requests already on their
        // way are answered and counted).
        var sent: [String: (record: ManagedObject, etag: String?, digest: String, alarms: [String], comments: [String])] = [:]
        do throws(PIMError) {
            let theirs = try serverTexts(of: puts.filter { $0.condition != .absent }.map(\.href), of: collection, client: client, base: base)
            // A relation the server's copy has to a task pim does not have is another client's.
            let tasks = collection.collectionKind == .calendar && !theirs.isEmpty ? try taskUIDs() : []
            var waves: [Int: [(slot: String, target: String, record: ManagedObject, condition: PutCondition, own: String, alarms: [String],
                               comments: [String], request: DAVRequest)]] = [:]
            for (slot, target, record, condition) in puts {
                guard let url = URL(string: target, relativeTo: base)?.absoluteURL else { continue }
                // A to-do last synced before pim read comments: the server's become annotations
                // here first, so that pim's text says them all (and later removals here count).
                if let task = record as? TaskItem, let last = known[slot], last.comments == nil, let server = theirs[key(target)] {
                    readComments(of: server, into: task)
                }
                let own = resourceText(of: record, in: collection)
                var merger = ResourceMerger(removedAttendees: Set(known[slot]?.attendees ?? []).subtracting(attendeeAddresses(of: record)),
                                            taskUIDs: tasks)
                let alarms = ResourceMerger.alarmKeys(of: own)
                merger.removedAlarms = Set(known[slot]?.alarms ?? []).subtracting(alarms)
                merger.contactAddresses = contactAddresses(of: record)
                let comments = ResourceMerger.commentKeys(of: own)
                merger.removedComments = Set(known[slot]?.comments ?? []).subtracting(comments)
                let text = theirs[key(target)].map { merger.merged(own, keeping: $0) } ?? own
                var headers = ["Content-Type": collection.collectionKind == .addressBook ? "text/vcard; charset=utf-8" : "text/calendar; charset=utf-8"]
                switch condition {
                case .ifMatch(let etag): headers["If-Match"] = etag
                case .absent: headers["If-None-Match"] = "*"
                }
                waves[depth(record), default: []].append((slot, target, record, condition, own, alarms, comments,
                                                          DAVRequest(method: "PUT", url: url, headers: headers, body: Data(text.utf8))))
            }
            for wave in waves.keys.sorted().compactMap({ waves[$0] }) {
                try Self.handleAnswers(to: wave, client.sendAll(wave.map(\.request))) { put, response in
                    let (slot, target, record, condition, own) = (put.slot, put.target, put.record, put.condition, put.own)
                    if response.status == 412 {
                        conflict(target, record, condition == .absent ? "made here, and on the server under the same name meanwhile"
                                                                      : "changed on the server while this run read it")
                        return
                    }
                    guard response.isSuccess else {
                        report.problems.append("PUT \(put.request.url.absoluteString) (\(describe(record))): the server answered \(response.statusLine)")
                        return
                    }
                    if record.value(forKey: "source") as? String != urlText { record.setValue(urlText, forKey: "source") }
                    if record.value(forKey: "externalID") as? String != target { record.setValue(target, forKey: "externalID") }
                    sent[slot] = (record, response.etag, Self.digest(of: own), put.alarms, put.comments)
                    report.sent += 1
                }
            }
            let deletes = remoteDeletes.compactMap { slot, target, etag -> (slot: String, target: String, request: DAVRequest)? in
                guard let url = URL(string: target, relativeTo: base)?.absoluteURL else { return nil }
                return (slot, target, DAVRequest(method: "DELETE", url: url, headers: ["If-Match": etag]))
            }
            try Self.handleAnswers(to: deletes, client.sendAll(deletes.map(\.request))) { delete, response in
                if response.status == 412 {
                    conflict(delete.target, nil, "deleted here, changed on the server while this run read it")
                } else if response.isSuccess || response.status == 404 {
                    known[delete.slot] = nil
                    report.removed += 1
                } else {
                    report.problems.append("DELETE \(delete.request.url.absoluteString): the server answered \(response.statusLine)")
                }
            }
        } catch {
            report.failure = error
        }

        // What both sides now agree on, stamped as the save will stamp the records.
        context.processPendingChanges()
        let touched = Set(JournalRecorder(store: self).touchedRecords().map(ObjectIdentifier.init))
        func savedStamp(_ record: ManagedObject) -> Double {
            resourceRecords(record).map { touched.contains(ObjectIdentifier($0)) ? now : ($0.value(forKey: "modified") as? Date ?? now) }
                .max()?.timeIntervalSinceReferenceDate ?? now.timeIntervalSinceReferenceDate
        }
        for (href, record) in pulled.records where !record.isDeleted {
            let text = resourceText(of: record, in: collection)
            known[key(href)] = SyncedResource(etag: server[key(href)]?.etag, stamp: savedStamp(record), digest: Self.digest(of: text),
                                              attendees: attendeeAddresses(of: record), alarms: ResourceMerger.alarmKeys(of: text),
                                              comments: ResourceMerger.commentKeys(of: text))
        }
        for (href, record) in inStep where known[href] != nil && !record.isDeleted && sent[href] == nil {
            known[href]?.stamp = savedStamp(record)
        }
        for (href, _) in localDeletes { known[href] = nil }
        for (href, value) in sent {
            known[href] = SyncedResource(etag: value.etag, stamp: savedStamp(value.record), digest: value.digest,
                                         attendees: attendeeAddresses(of: value.record), alarms: value.alarms, comments: value.comments)
        }
        collection.syncedResources = known
        if report.failure == nil { collection.lastSynced = now }
        return report
    }

    /// Handles the answer to each of `items`' requests that has one, in order; then throws the
    /// first request's failure, if one failed (the answers that came are handled all the same).
    private static func handleAnswers<Item>(to items: [Item], _ results: [Result<DAVResponse, PIMError>],
                                            _ handle: (Item, DAVResponse) -> Void) throws(PIMError) {
        var failure: PIMError?
        for (item, result) in zip(items, results) {
            switch result {
            case .success(let response): handle(item, response)
            case .failure(let error): failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// An href as pim compares them: its path (an absolute URL's too), percent-decoded.
    static func hrefKey(_ href: String, base: URL) -> String {
        URL(string: href, relativeTo: base)?.path ?? href
    }

    /// What a resource's text says, as compared between syncs: a hash of its lines without those
    /// that change with every writing (DTSTAMP, LAST-MODIFIED, REV) and without its time zone
    /// definitions.
    private func digest(of record: ManagedObject, in collection: SyncCollection) -> String {
        Self.digest(of: resourceText(of: record, in: collection))
    }

    static func digest(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var inZone = false
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            if line == "BEGIN:VTIMEZONE" { inZone = true }
            defer { if line == "END:VTIMEZONE" { inZone = false } }
            if inZone || line.hasPrefix("DTSTAMP:") || line.hasPrefix("LAST-MODIFIED:") || line.hasPrefix("REV:") { continue }
            for byte in line.utf8 + [10] {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    /// Adds the COMMENTs of the server's `text` of `task` that it does not have (by text,
    /// ignoring case) to its annotations, after its own.
    private func readComments(of text: String, into task: TaskItem) {
        var annotations = Annotation.list(task.annotations)
        var known = Set(annotations.map { $0.text.lowercased() })
        // Read as `pim import` reads them (the `notelist` mapping type).
        for annotation in Annotation.list(FeedImporter.noteList(ResourceMerger.comments(of: text)))
        where known.insert(annotation.text.lowercased()).inserted {
            annotations.append(annotation)
        }
        let stored = Annotation.stored(annotations)
        if stored != task.annotations { task.annotations = stored }
    }

    /// Each address (lower case) of the attendees and organizers of `record`'s events, with all
    /// the addresses of its contact (``ResourceMerger/contactAddresses``).
    private func contactAddresses(of record: ManagedObject) -> [String: Set<String>] {
        guard let event = record as? Event else { return [:] }
        var addresses: [String: Set<String>] = [:]
        let events = resourceRecords(event).compactMap { $0 as? Event }
        for contact in events.flatMap(\.attendees) + events.compactMap(\.organizer) {
            let all = Set(contact.emailAddresses.compactMap { $0.address?.lowercased() })
            for address in all { addresses[address, default: []].formUnion(all) }
        }
        return addresses
    }

    /// The addresses of a resource's attendees here (lower case), every address of each: an
    /// attendee the server's copy has that is among them at one sync and gone at the next was
    /// removed here.
    private func attendeeAddresses(of record: ManagedObject) -> [String] {
        guard let event = record as? Event else { return [] }
        let addresses = resourceRecords(event).compactMap { $0 as? Event }.flatMap(\.attendees)
            .flatMap { $0.emailAddresses.compactMap { $0.address?.lowercased() } }
        return Array(Set(addresses)).sorted()
    }

    /// The server's text of the resources at `hrefs` (multiget), by href as compared.
    private func serverTexts(of hrefs: [String], of collection: SyncCollection, client: DAVClient, base: URL) throws(PIMError) -> [String: String] {
        var texts: [String: String] = [:]
        for answer in try multiget(hrefs, of: collection, client: client, base: base) {
            for member in answer.members {
                if let data = member.data { texts[Self.hrefKey(member.href, base: base)] = data }
            }
        }
        return texts
    }

    /// The UIDs (lower case) the store's tasks are written with.
    private func taskUIDs() throws(PIMError) -> Set<String> {
        Set(try fetch(FetchRequest<TaskItem>(entityName: "Task")).compactMap { ICalendarWriter.uid(of: $0)?.lowercased() })
    }

    /// How a PUT is made conditional: on the tag the server had, or on there being nothing.
    private enum PutCondition: Equatable {
        case ifMatch(String)
        case absent
    }

    /// The records bound to `collection`'s resources, by href (a repeating event's series, its
    /// changed occurrences going with it).
    private func syncedRecords(of collection: SyncCollection, movedToo: Bool = false) throws(PIMError) -> [String: ManagedObject] {
        var records: [String: ManagedObject] = [:]
        for (entityName, format) in entityQueries(for: collection) {
            var request = FetchRequest<ManagedObject>(entityName: entityName)
            do {
                request.predicate = try ObjectGraph.Predicate(format: "source == %@" + format, collection.url ?? "")
            } catch {
                throw PIMError.store(path: url.path, reason: "\(error)")
            }
            for record in try fetch(request) {
                // An event moved here to another pim calendar has left the collection: it is
                // deleted there, and sent to the collection of its calendar as a new resource.
                if !movedToo, let event = record as? Event, event.calendar != collection.calendar { continue }
                if let href = record.value(forKey: "externalID") as? String { records[href] = record }
            }
        }
        return records
    }

    /// The entities a collection's resources are, each with what narrows the fetch: an address
    /// book's contacts and the groups read from it as group cards (groups made here are sent as
    /// their members' CATEGORIES only).
    private func entityQueries(for collection: SyncCollection) -> [(String, String)] {
        switch collection.collectionKind {
        case .addressBook: [("Contact", ""), ("Group", "")]
        case .calendar: [("Event", " AND master == nil"), ("Task", "")]
        }
    }

    /// The records made here that `collection` is to receive: contacts for the first address
    /// book; events of the collection's calendar; tasks for the first calendar that holds them.
    private func unsyncedRecords(for collection: SyncCollection) throws(PIMError) -> [ManagedObject] {
        let all = try syncCollections()
        var requests: [(String, ObjectGraph.Predicate)] = []
        do {
            switch collection.collectionKind {
            case .addressBook:
                if all.first(where: { $0.collectionKind == .addressBook }) === collection {
                    requests.append(("Contact", try ObjectGraph.Predicate(format: "source == nil")))
                }
            case .calendar:
                if collection.holdsEvents, let calendar = collection.calendar {
                    // Also the events of this calendar still bound to the collection of the one
                    // they were moved from.
                    let elsewhere = all.filter { $0 !== collection && $0.collectionKind == .calendar && $0.calendar != calendar }.compactMap(\.url)
                    requests.append(("Event", try ObjectGraph.Predicate(format: "(source == nil OR source IN %@) AND master == nil AND calendar == %@",
                                                                        elsewhere, calendar)))
                }
                if all.first(where: \.holdsTasks) === collection {
                    requests.append(("Task", try ObjectGraph.Predicate(format: "source == nil")))
                }
            }
        } catch {
            throw PIMError.store(path: url.path, reason: "\(error)")
        }
        var records: [ManagedObject] = []
        for (entityName, predicate) in requests {
            var request = FetchRequest<ManagedObject>(entityName: entityName)
            request.predicate = predicate
            request.sortDescriptors = [SortDescriptor(key: "number", ascending: true)]
            records += try fetch(request)
        }
        // Parents before their subtasks: a subtask's RELATED-TO names a resource already sent.
        return records.sorted { depth($0) < depth($1) }
    }

    private func depth(_ record: ManagedObject) -> Int {
        var depth = 0
        var parent = (record as? TaskItem)?.parent
        while let next = parent, depth < 100 {
            depth += 1
            parent = next.parent
        }
        return depth
    }

    /// A resource's records: a series with its changed occurrences, else the record alone.
    private func resourceRecords(_ record: ManagedObject) -> [ManagedObject] {
        if let event = record as? Event { return [event] + event.overrides.filter { !$0.isDeleted } }
        return [record]
    }

    /// The latest modification of a resource's records here.
    private func stamp(of record: ManagedObject) -> Double {
        resourceRecords(record).compactMap { ($0.value(forKey: "modified") as? Date)?.timeIntervalSinceReferenceDate }.max() ?? 0
    }

    /// Stamps that agree to the millisecond (what a store keeps of a date).
    private static func sameStamp(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 0.001 }

    /// The text sent for `record`: a vCard, or an iCalendar object with its series or to-do.
    private func resourceText(of record: ManagedObject, in collection: SyncCollection) -> String {
        switch record {
        case let contact as Contact: VCardWriter().cards(for: [contact])
        case let group as Group: VCardWriter().groupCard(for: group)
        case is Event: exportText([record], kind: .event)
        default: exportText([record], kind: .task)
        }
    }

    /// A record as a conflict names it: its kind, number and name.
    private func describe(_ record: ManagedObject) -> String {
        guard let kind = RecordKind(entity: record.entity) else { return record.entity.name }
        let number = record.value(forKey: "number") as? Int64 ?? 0
        return "\(kind.singular) \(number): \(record.value(forKey: kind.nameKey) as? String ?? "")"
    }

    /// Reads the resources at `hrefs` (multiget, 100 at a time) into the context through the
    /// dav mapping; returns the records they became and the tags the server gave them.
    private func pull(_ hrefs: [String], of collection: SyncCollection, client: DAVClient, base: URL,
                      report: inout SyncReport) throws(PIMError) -> (records: [String: ManagedObject], etags: [String: String]) {
        guard !hrefs.isEmpty else { return ([:], [:]) }
        let mapping = try FeedFormat.named("dav")
        var etags: [String: String] = [:]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pim-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PIMError.store(path: folder.path, reason: "cannot make a folder for the server's answers: \(error.localizedDescription)")
        }
        var files: [URL] = []
        for (number, answer) in try multiget(hrefs, of: collection, client: client, base: base).enumerated() {
            for member in answer.members {
                if let etag = member.etag { etags[member.href] = etag }
            }
            let file = folder.appendingPathComponent("answer-\(number).xml")
            do {
                try answer.response.body.write(to: file)
            } catch {
                throw PIMError.store(path: file.path, reason: "cannot keep the server's answer: \(error.localizedDescription)")
            }
            files.append(file)
        }
        // One import of every answer, so that a subtask links to a parent read in a later one.
        for summary in try importFeeds(at: files, mapping: mapping, source: collection.url, skipInvalid: true) {
            reportedCounts(summary.report, into: &report)
            // Named by the resource, not by the line of the answer (a file that is gone).
            report.refused += (summary.report.skipped + summary.dependenciesLeftOut).map { issue in
                let resource = issue.key.flatMap { URL(string: $0, relativeTo: base)?.absoluteString } ?? base.absoluteString
                return "\(resource) (\(issue.entity)): \(issue.message)"
            }
        }
        // The records the resources became (those refused are not among them: read again next time).
        var records: [String: ManagedObject] = [:]
        let bound = try syncedRecords(of: collection, movedToo: true)
        for href in hrefs {
            guard let record = bound[href] else { continue }
            records[href] = record
            if let event = record as? Event, let calendar = collection.calendar {
                for one in resourceRecords(event) {
                    if let changed = one as? Event, changed.calendar != calendar { changed.calendar = calendar }
                }
            }
        }
        return (records, etags)
    }

    /// The resources at `hrefs` with their tags and text (calendar-multiget, addressbook-multiget),
    /// asked for 100 at a time: one answer per request.
    private func multiget(_ hrefs: [String], of collection: SyncCollection, client: DAVClient,
                          base: URL) throws(PIMError) -> [(response: DAVResponse, members: [DAVMember])] {
        let addressBook = collection.collectionKind == .addressBook
        let method = addressBook ? "r:addressbook-multiget" : "c:calendar-multiget"
        let data = addressBook ? "<r:address-data/>" : "<c:calendar-data/>"
        var answers: [(response: DAVResponse, members: [DAVMember])] = []
        var start = 0
        while start < hrefs.count {
            let batch = hrefs[start..<min(start + 100, hrefs.count)]
            start += 100
            let body = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
                + #"<\#(method) xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:r="urn:ietf:params:xml:ns:carddav">"#
                + "<d:prop><d:getetag/>\(data)</d:prop>"
                + batch.map { "<d:href>\(Self.escapedText($0))</d:href>" }.joined()
                + "</\(method)>"
            let response = try client.send("REPORT", base, headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
                                           body: Data(body.utf8))
            guard response.status == 207 else {
                throw PIMError.server("REPORT \(base.absoluteString): the server answered \(response.statusLine)")
            }
            answers.append((response, try DAVMultistatus.members(of: response.body, from: base)))
        }
        return answers
    }

    private func reportedCounts(_ feed: FeedImportReport, into report: inout SyncReport) {
        report.added += feed.inserted
        report.updated += feed.updated
        report.deleted += feed.deleted
    }

    /// Text as XML character data.
    static func escapedText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A PROPFIND request asking for `properties` (`<d:getetag/>`; prefixes d, c and r are DAV,
    /// CalDAV and CardDAV).
    private static func propfindBody(_ properties: String) -> Data {
        Data((#"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
            + #"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:r="urn:ietf:params:xml:ns:carddav"><d:prop>"#
            + properties + "</d:prop></d:propfind>").utf8)
    }

    /// The members PROPFIND lists at `url` with `properties` (`<d:getetag/>`).
    func propfind(_ client: DAVClient, _ url: URL, depth: String, properties: [String]) throws(PIMError) -> [DAVMember] {
        let body = Self.propfindBody(properties.joined())
        let response = try client.send("PROPFIND", url, headers: ["Depth": depth, "Content-Type": "application/xml; charset=utf-8"],
                                       body: body)
        guard response.status == 207 else {
            throw PIMError.server("PROPFIND \(url.absoluteString): the server answered \(response.statusLine)")
        }
        return try DAVMultistatus.members(of: response.body, from: url)
    }
}
