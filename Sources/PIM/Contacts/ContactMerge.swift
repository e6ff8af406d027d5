// `pim contacts merge`: several contacts that are one person or organization (a card imported
// from two feeds, a phone's copy beside one typed here) become the first of them. What the first
// lacks it takes from the others; lists are joined without repeats; events, tasks and groups that
// name another now name it; the others are deleted. Values the first keeps over another's are
// reported, and `pim undo` takes the whole merge back.
import Foundation
import ObjectGraph

/// A value a merge left out: the contact it kept had another one.
public struct DroppedValue: Sendable, Equatable {
    /// The field, as pim names it (`nickname`, `birthday`).
    public var field: String
    /// The value left out, as `show` writes it.
    public var value: String
    /// The number of the contact it came from.
    public var from: Int64
}

/// What merging contacts did.
public struct ContactMergeReport {
    /// The contact the others were merged into.
    public var contact: Contact
    /// The contacts merged into it (deleted; the save removes them).
    public var merged: [Contact]
    /// The fields it had no value for and took from another (`birthday`, `photo`).
    public var filled: [String] = []
    /// What it gained from the others' lists (`e-mail addresses`, `phone numbers`, `postal
    /// addresses`), each with its count.
    public var added: [(what: String, count: Int)] = []
    /// The records that named the others and name it now (`events`, `tasks`, `groups`), each
    /// with its count.
    public var movedTo: [(what: String, count: Int)] = []
    /// The others' values it kept its own over.
    public var dropped: [DroppedValue] = []
    /// Whether its notes now end with another's.
    public var joinedNotes = false
    /// The sync collection whose card it took from another (the collection's URL): pim sync then
    /// updates that card through it.
    public var tookSource: String?
    /// The import source it was bound to before it took the card (the feed its record came from).
    public var leftSource: String?
}

extension PIMStore {
    /// Merges the contacts `references` name into the first of them (see the file's comment);
    /// nothing is saved. The contacts must be distinct.
    public func mergeContacts(_ references: [String]) throws(PIMError) -> ContactMergeReport {
        guard references.count >= 2 else { throw PIMError.usage("merge needs two contacts or more: the one to keep, then those merged into it") }
        let resolver = RecordResolver(store: self)
        var contacts: [Contact] = []
        for reference in references {
            guard let contact = try resolver.resolve(reference, as: .contact) as? Contact else {
                throw PIMError.notFound(kind: .contact, reference: reference)
            }
            if contacts.contains(where: { $0 === contact }) {
                throw PIMError.usage("\"\(reference)\" names contact \(contact.number) (\(contact.name ?? "")) a second time: each contact is merged once")
            }
            contacts.append(contact)
        }
        return merge(contacts.dropFirst(), into: contacts[0])
    }

    /// Merges `others` into `target` and deletes them.
    func merge(_ others: ArraySlice<Contact>, into target: Contact) -> ContactMergeReport {
        var report = ContactMergeReport(contact: target, merged: Array(others))
        var counts: [String: Int] = [:]
        var events: Set<ObjectIdentifier> = []
        for other in others {
            mergeValues(of: other, into: target, report: &report)
            counts["e-mail addresses", default: 0] += moveEmails(of: other, to: target)
            counts["phone numbers", default: 0] += movePhones(of: other, to: target, report: &report)
            counts["postal addresses", default: 0] += moveAddresses(of: other, to: target)
            events.formUnion(moveEvents(of: other, to: target))
            counts["tasks", default: 0] += moveTasks(of: other, to: target)
            counts["groups", default: 0] += moveGroups(of: other, to: target)
            takeBinding(of: other, into: target, report: &report)
            context.delete(other)
        }
        counts["events"] = events.count
        func counted(_ whats: [String]) -> [(what: String, count: Int)] {
            whats.compactMap { what in counts[what].flatMap { $0 > 0 ? (what, $0) : nil } }
        }
        report.added = counted(["e-mail addresses", "phone numbers", "postal addresses"])
        report.movedTo = counted(["events", "tasks", "groups"])
        return report
    }

    /// The single values: what `target` lacks is taken from `other`; what both have and differs
    /// is reported dropped. Notes are joined.
    private func mergeValues(of other: Contact, into target: Contact, report: inout ContactMergeReport) {
        /// `other`'s value of `keyPath`: taken when `target` has none, reported dropped when
        /// `target` has another. An empty text is no value.
        func take<Record: Contact, Value: Equatable>(_ field: String, _ other: Record, _ target: Record,
                                                    _ keyPath: ReferenceWritableKeyPath<Record, Value?>, text: (Value) -> String) {
            func isEmpty(_ value: Value?) -> Bool {
                guard let value else { return true }
                return (value as? String)?.trimmingCharacters(in: .whitespaces).isEmpty ?? false
            }
            guard let value = other[keyPath: keyPath], !isEmpty(value) else { return }
            if let kept = target[keyPath: keyPath], !isEmpty(kept) {
                if kept != value { report.dropped.append(DroppedValue(field: field, value: text(value), from: other.number)) }
            } else {
                target[keyPath: keyPath] = value
                if !report.filled.contains(field) { report.filled.append(field) }
            }
        }
        if let name = other.name, name != target.name {
            report.dropped.append(DroppedValue(field: "name", value: name, from: other.number))
        }
        take("url", other, target, \.url) { $0.absoluteString }
        take("photo", other, target, \.photo) { "\($0.count) bytes" }
        // The person's and the organization's own fields, between contacts of the same kind; a
        // person's fields merged into an organization (or the reverse) are reported dropped.
        let personal: [(String, ReferenceWritableKeyPath<Person, String?>)] = [
            ("nickname", \.nickname), ("organization", \.organization), ("title", \.jobTitle),
        ]
        let days: [(String, ReferenceWritableKeyPath<Person, Date?>)] = [("birthday", \.birthday), ("anniversary", \.anniversary)]
        if let person = other as? Person {
            if let kept = target as? Person {
                for (field, keyPath) in personal { take(field, person, kept, keyPath) { $0 } }
                for (field, keyPath) in days { take(field, person, kept, keyPath) { OutputFormat.day($0) } }
            } else {
                for (field, keyPath) in personal {
                    if let value = person[keyPath: keyPath], !value.trimmingCharacters(in: .whitespaces).isEmpty {
                        report.dropped.append(DroppedValue(field: field, value: value, from: other.number))
                    }
                }
                for (field, keyPath) in days {
                    if let value = person[keyPath: keyPath] {
                        report.dropped.append(DroppedValue(field: field, value: OutputFormat.day(value), from: other.number))
                    }
                }
            }
        }
        if let organization = other as? Organization, let unit = organization.unit, !unit.trimmingCharacters(in: .whitespaces).isEmpty {
            if let kept = target as? Organization {
                take("unit", organization, kept, \.unit) { $0 }
            } else {
                report.dropped.append(DroppedValue(field: "unit", value: unit, from: other.number))
            }
        }
        if let notes = other.notes?.trimmingCharacters(in: .whitespacesAndNewlines), !notes.isEmpty {
            if let kept = target.notes, !kept.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                if !kept.contains(notes) {
                    target.notes = kept.trimmingCharacters(in: .whitespacesAndNewlines) + "\n\n" + notes
                    report.joinedNotes = true
                }
            } else {
                target.notes = notes
                if !report.filled.contains("notes") { report.filled.append("notes") }
            }
        }
    }

    /// Moves `other`'s e-mail addresses that `target` lacks (ignoring case) to the end of its
    /// list; how many.
    private func moveEmails(of other: Contact, to target: Contact) -> Int {
        var known = Set(target.emailAddresses.compactMap { $0.address?.lowercased() })
        var moved = 0
        for email in Array(other.emailAddresses) {
            guard let address = email.address, known.insert(address.lowercased()).inserted else { continue }
            target.addToEmailAddresses(email)
            moved += 1
        }
        return moved
    }

    /// Moves `other`'s phone numbers that `target` lacks to the end of its list; how many. A
    /// number is compared as duplicates compares it (``phoneKey(_:)``: `07700 900123` is `+44 7700
    /// 900123`); one written otherwise than `target` writes it is reported dropped.
    private func movePhones(of other: Contact, to target: Contact, report: inout ContactMergeReport) -> Int {
        // A short number by its digits; one without digits (`see the website`) by its text.
        func key(_ number: String) -> String {
            if let key = Self.phoneKey(number) { return key }
            let digits = Self.phoneDigits(number)
            return digits.contains(where: \.isNumber) ? digits : "text:" + number.trimmingCharacters(in: .whitespaces).lowercased()
        }
        var known: [String: String] = [:]
        for phone in target.phoneNumbers {
            if let number = phone.number, known[key(number)] == nil { known[key(number)] = number }
        }
        var moved = 0
        for phone in Array(other.phoneNumbers) {
            guard let number = phone.number else { continue }
            if let kept = known[key(number)] {
                if Self.phoneDigits(kept) != Self.phoneDigits(number) {
                    report.dropped.append(DroppedValue(field: "phone", value: number, from: other.number))
                }
                continue
            }
            known[key(number)] = number
            target.addToPhoneNumbers(phone)
            moved += 1
        }
        return moved
    }

    /// Moves `other`'s postal addresses that `target` lacks (the same parts, ignoring case and
    /// labels) to the end of its list; how many.
    private func moveAddresses(of other: Contact, to target: Contact) -> Int {
        func key(_ address: PostalAddress) -> String {
            [address.street, address.locality, address.region, address.postalCode, address.country]
                .map { ($0 ?? "").trimmingCharacters(in: .whitespaces).lowercased() }.joined(separator: ";")
        }
        var known = Set(target.postalAddresses.map(key))
        var moved = 0
        for address in Array(other.postalAddresses) where known.insert(key(address)).inserted {
            target.addToPostalAddresses(address)
            moved += 1
        }
        return moved
    }

    /// The events `other` attends or organizes now have `target` in its place; which.
    private func moveEvents(of other: Contact, to target: Contact) -> Set<ObjectIdentifier> {
        var moved: Set<ObjectIdentifier> = []
        for event in other.attendedEvents {
            event.removeFromAttendees(other)
            if !event.attendees.contains(where: { $0 === target }) { event.addToAttendees(target) }
            moved.insert(ObjectIdentifier(event))
        }
        for event in other.organizedEvents {
            event.organizer = target
            moved.insert(ObjectIdentifier(event))
        }
        return moved
    }

    /// The tasks assigned to `other` are assigned to `target`; how many.
    private func moveTasks(of other: Contact, to target: Contact) -> Int {
        let tasks = other.assignedTasks
        for task in tasks { task.assignee = target }
        return tasks.count
    }

    /// `target` joins the groups of `other` it is not in; how many.
    private func moveGroups(of other: Contact, to target: Contact) -> Int {
        var joined = 0
        for group in other.groups where !target.groups.contains(where: { $0 === group }) {
            group.addToMembers(target)
            joined += 1
        }
        return joined
    }

    /// A target not bound to a sync collection's card (typed here, or imported) takes `other`'s
    /// binding to one (its collection, its href there, and the card's UID): the next sync updates
    /// the server's card in place (with what pim does not read of it) instead of deleting it and,
    /// with it, the person on every device. An imported target so leaves its feed: a new import
    /// of it adds that record again. A binding to an imported feed's record is not taken: a new
    /// import of the feed would replace the merged contact's values with the feed's (an import
    /// sets what the feed says); the other contact comes back with it instead, as a deleted one
    /// does.
    private func takeBinding(of other: Contact, into target: Contact, report: inout ContactMergeReport) {
        guard report.tookSource == nil, !(target.source.map(isSyncCollection) ?? false),
              let source = other.source, let key = other.externalID, isSyncCollection(source) else { return }
        let uid = ICalendarWriter.uid(of: other)
        report.leftSource = target.source
        other.source = nil
        other.externalID = nil
        target.source = source
        target.externalID = key
        target.uid = uid
        report.tookSource = source
    }

    /// Whether `source` is the URL of a collection `pim sync` syncs.
    private func isSyncCollection(_ source: String) -> Bool {
        var request = FetchRequest<SyncCollection>(entityName: "SyncCollection")
        guard let predicate = try? ObjectGraph.Predicate(format: "url == %@", source) else { return false }
        request.predicate = predicate
        return ((try? fetch(request)) ?? []).isEmpty == false
    }

    /// A phone number's digits, with its leading `+`: how merges and duplicates compare numbers
    /// (`+44 7700 900123` and `+44 (7700) 900-123` are one).
    static func phoneDigits(_ number: String) -> String {
        let digits = number.filter(\.isASCII).filter(\.isNumber)
        return number.trimmingCharacters(in: .whitespaces).hasPrefix("+") ? "+" + digits : digits
    }
}
