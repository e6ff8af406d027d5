// `pim contacts`: add, list, show, edit, delete and search contacts (persons and organizations),
// and group them.
import ArgumentParser
import Foundation
import PIM

struct ContactsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "Add, list, change and group contacts.",
        subcommands: [Add.self, List.self, Show.self, Edit.self, Delete.self, Search.self, Email.self, Phone.self, Birthdays.self,
                      Duplicates.self, Merge.self, Export.self, GroupCommand.self],
        aliases: ["contact", "c"]
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case person, organization
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a contact.", aliases: ["new"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The name (words are joined).") var name: [String]
        @Option(name: .customLong("email"), help: ArgumentHelp("An email address, optionally labelled: work:ann@example.org (repeatable).", valueName: "addr")) var emails: [String] = []
        @Option(name: .customLong("phone"), help: ArgumentHelp("A phone number, optionally labelled: mobile:+44 7700 900123 (repeatable).", valueName: "num")) var phones: [String] = []
        @Option(name: .customLong("address"), help: ArgumentHelp("A postal address, optionally labelled, parts separated by ';': home:1 Main St;Springfield;IL;62701;USA (repeatable).", valueName: "adr")) var addresses: [String] = []
        @Option(help: ArgumentHelp("The organization a person works for.", valueName: "name")) var org: String?
        @Option(name: .customLong("title"), help: ArgumentHelp("A person's job title.", valueName: "title")) var jobTitle: String?
        @Option(help: "A person's nickname.") var nickname: String?
        @Option(help: ArgumentHelp("A person's birthday: 1990-04-01, or without a year: --04-01, 'apr 1'.", valueName: "date")) var birthday: String?
        @Option(help: ArgumentHelp("A person's anniversary, as a birthday.", valueName: "date")) var anniversary: String?
        @Option(help: "person (the default) or organization.") var kind: Kind = .person
        @Option(help: "Notes.") var notes: String?

        func run() throws {
            let session = try Session(global)
            var draft = ContactDraft(name: name.joined(separator: " "))
            draft.isOrganization = kind == .organization
            draft.emails = emails
            draft.phones = phones
            draft.addresses = addresses
            draft.organization = org
            draft.jobTitle = jobTitle
            draft.nickname = nickname
            draft.birthday = birthday
            draft.anniversary = anniversary
            draft.notes = notes
            let contact = try session.store.addContact(draft)
            try session.commit()
            try session.printChanged([contact], kind: .contact, verb: "Added") { _ in
                [("birthday", (contact as? Person)?.birthday), ("anniversary", (contact as? Person)?.anniversary)].compactMap { label, day in
                    day.map { "\(label) \(OutputFormat.day($0, weekday: true))" }
                }
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List contacts by name.", aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(help: ArgumentHelp("Only members of this group.", valueName: "group")) var group: String?

        func run() throws {
            let session = try Session(global)
            var query = list.query(.contact)
            if let group { query.filters = [try session.store.contactsPredicate(inGroup: group)] }
            try session.printList(query, fieldNames: list.fieldNames)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a contact.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The contact: number, UUID (prefix) or name.") var id: String

        func run() throws { try RecordCommands.show(id, kind: .contact, global: global) }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a contact: the fields given as flags, or all of them in $VISUAL or $EDITOR.",
            discussion: "Emails and phones are comma-separated lists that replace the old ones. " + Editor.help)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The contact.") var id: String
        @Option(help: "The full name.") var name: String?
        @Option(help: "Nickname.") var nickname: String?
        @Option(help: ArgumentHelp("Organization.", valueName: "name")) var org: String?
        @Option(name: .customLong("title"), help: "Job title.") var jobTitle: String?
        @Option(help: ArgumentHelp("Birthday (--04-01: without a year).", valueName: "date")) var birthday: String?
        @Option(help: ArgumentHelp("Anniversary.", valueName: "date")) var anniversary: String?
        @Option(help: ArgumentHelp("Email addresses, comma-separated.", valueName: "addrs")) var emails: String?
        @Option(help: ArgumentHelp("Phone numbers, comma-separated.", valueName: "nums")) var phones: String?
        @Option(help: ArgumentHelp("Postal addresses, '|'-separated.", valueName: "adrs")) var addresses: String?
        @Option(help: "Notes.") var notes: String?

        func run() throws {
            let values: [String: String?] = [
                "name": name, "nickname": nickname, "organization": org, "jobTitle": jobTitle, "birthday": birthday,
                "anniversary": anniversary, "emails": emails, "phones": phones, "addresses": addresses, "notes": notes,
            ]
            try RecordCommands.edit(id, kind: .contact, values: values.compactMapValues { $0 }, global: global)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete contacts (their addresses go with them; events lose them as attendees, tasks are unassigned).",
            aliases: ["rm"])

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The contacts.") var ids: [String]
        @Flag(name: [.long, .customShort("y")], help: "Do not ask for confirmation.") var yes = false

        func run() throws { try RecordCommands.delete(ids, kind: .contact, yes: yes, global: global) }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Contacts whose names, nickname, organization, job title, emails, phones, addresses or notes contain every word.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Argument(help: "The words.") var words: [String]

        func run() throws { try RecordCommands.search(words, kind: .contact, list: list, global: global) }
    }

    struct Birthdays: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The coming birthdays and anniversaries of contacts, soonest first.",
            discussion: """
                One line each, over a year from today (or --days days): the day, how soon, the contact and the age \
                reached or the years marked (none for a date without a year, which address books write as 1604); \
                29 February shows on 28 February in other years. --json prints objects with contact, name, type \
                (birthday or anniversary), date, days and, when known, years. Exit 1 when there are none.
                """)

        @OptionGroup var global: GlobalOptions
        @Option(parsing: .unconditional, help: "How many days, from today (default: a year, up to the same date next year).") var days: Int?

        func run() throws {
            let session = try Session(global)
            let store = session.store
            let dates = try store.contactDates(days: days)
            var rows: [(day: Date, person: Person, type: String, years: Int?)] = []
            for day in dates {
                for item in day.items {
                    switch item {
                    case let .birthday(person, years): rows.append((day.day, person, "birthday", years))
                    case let .anniversary(person, years): rows.append((day.day, person, "anniversary", years))
                    case .event, .task: break
                    }
                }
            }
            func daysUntil(_ day: Date) -> Int { store.daysFromToday(day) }
            if global.json {
                try session.print(RecordPresenter.json(rows.map { row in
                    var object: [String: Any] = ["contact": row.person.number, "name": row.person.name ?? "", "type": row.type,
                                                 "date": OutputFormat.rfc3339(row.day, timeZone: store.timeZone, dateOnly: true),
                                                 "days": daysUntil(row.day)]
                    if let years = row.years { object["years"] = years }
                    return object
                }))
            } else if !rows.isEmpty {
                var table = Table(headers: ["#", "DATE", "IN", "NAME", "WHAT"])
                for row in rows {
                    let count = daysUntil(row.day)
                    let soon = count == 0 ? "today" : count == 1 ? "tomorrow" : "\(count) days"
                    let years = row.years.map { row.type == "birthday" ? " (turns \($0))" : " (\(AgendaPresenter.years($0)))" } ?? ""
                    table.append([String(row.person.number), OutputFormat.echo(row.day, timeZone: store.timeZone, dateOnly: true), soon,
                                  row.person.name ?? "", row.type + years], emphasis: count == 0 ? .active : .plain)
                }
                try session.print(table.render(colored: session.colored))
            }
            if rows.isEmpty {
                throw PIMError.noMatch("no birthdays or anniversaries in the next " + (days.map { "\($0) day\($0 == 1 ? "" : "s")" } ?? "year"))
            }
        }
    }

    struct Email: ParsableCommand {
        /// A value for one field of a tab-separated line: a tab or line break inside would split it.
        static func clean(_ text: String) -> String { text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }

        static let configuration = CommandConfiguration(
            abstract: "The e-mail addresses of the contacts whose text contains every word (all with none), for mail programs.",
            discussion: """
                One line per address: the address, the contact's name and the address's label, separated by tabs, \
                by contact name. aerc: address-book-cmd = pim contacts email %s. mutt and neomutt: \
                set query_command = "pim contacts email --mutt %s" (a first line for the query's status, as mutt \
                expects). --json prints the addresses as objects. Exit 1 when no contact with an address matches.
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print a first status line, as mutt's query_command reads.") var mutt = false
        @Argument(help: "The words (parts of names, nicknames, organizations or addresses).") var words: [String] = []

        func run() throws {
            let session = try Session(global)
            let addresses = try session.store.emailAddresses(matching: words)
            if global.json {
                try session.print(RecordPresenter.json(addresses.map { ["address": $0.address, "name": $0.name, "label": $0.label, "contact": $0.contact] as [String: Any] }))
            } else {
                var lines = mutt ? ["pim: " + (addresses.isEmpty ? "no matches" : "\(addresses.count) address\(addresses.count == 1 ? "" : "es")")] : []
                lines += addresses.map { [$0.address, $0.name, $0.label].map(Self.clean).joined(separator: "\t") }
                if !lines.isEmpty { try session.print(lines.joined(separator: "\n") + "\n") }
            }
            if addresses.isEmpty { throw PIMError.noMatch("no contact with an e-mail address matches") }
        }
    }

    struct Duplicates: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Contacts that are likely the same person or organization, for merge.",
            discussion: """
                Contacts go together when they share an e-mail address (ignoring case), a phone number (its last nine \
                digits: +44 7700 900123 is 07700 900123) or a name (ignoring case, accents, punctuation and word order: \
                "Smith, Ann" is Ann Smith, O'Brien is OBrien); contacts linked through others are one set. Each set is printed as its \
                contacts (number, name, first e-mail address), what they share, and the merge command that keeps the \
                first. --json prints an array of objects with contacts (number, id, name) and shared (kind: email, phone \
                or name; value). Exit 1 when there are none.
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try Session(global)
            let sets = try session.store.duplicateContacts()
            if global.json {
                try session.print(RecordPresenter.json(sets.map { set in
                    ["contacts": set.contacts.map { contact in
                        ["number": contact.number, "id": contact.uuid?.uuidString.lowercased() ?? "", "name": contact.name ?? ""] as [String: Any]
                     },
                     "shared": set.shared.map { ["kind": $0.kind.rawValue, "value": $0.value] }] as [String: Any]
                }))
            } else if !sets.isEmpty {
                let labels: [SharedValue.Kind: String] = [.email: "e-mail", .phone: "phone", .name: "name"]
                let text = sets.map { set in
                    var table = Table(headers: ["#", "NAME", "EMAIL"])
                    for contact in set.contacts {
                        table.append([String(contact.number), contact.name ?? "", contact.emailAddresses.first?.address ?? ""])
                    }
                    let shared = set.shared.map { "\(labels[$0.kind] ?? $0.kind.rawValue) \($0.value)" }.joined(separator: "; ")
                    let merge = "pim contacts merge " + set.contacts.map { String($0.number) }.joined(separator: " ")
                    return table.render(colored: session.colored) + "shared: \(shared)\nmerge:  \(merge)\n"
                }.joined(separator: "\n")
                try session.print(text)
            }
            if sets.isEmpty { throw PIMError.noMatch("no contacts share an e-mail address, a phone number or a name") }
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge contacts into the first: it takes what it lacks, the others are deleted.",
            discussion: """
                The first contact keeps its own values. A field it has no value for (nickname, organization, title, \
                birthday, anniversary, url, photo, notes) takes the first other contact's; notes that differ are joined. \
                E-mail addresses, phone numbers and postal addresses it lacks are added after its own. Events the others \
                attend or organize, tasks assigned to them and their groups name the first contact instead. The others \
                are then deleted (asked first, as delete asks; --yes does not ask). Values of the others that differ \
                from the first's are listed as dropped. A first contact not synced (typed here or imported) takes the \
                card of the first other read from a CardDAV address book: pim sync then updates that card on the \
                server instead of deleting it. An imported contact merged comes back with a new import of its feed, as a deleted one \
                does. pim undo takes the merge back. --json prints an object: contact \
                (the merged contact, as show prints it), merged (number, id, name of each contact merged into it) and \
                dropped (field, value, from).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The contact to keep, then those merged into it.") var ids: [String]
        @Flag(name: [.long, .customShort("y")], help: "Do not ask for confirmation.") var yes = false

        func run() throws {
            let session = try Session(global)
            let report = try session.store.mergeContacts(ids)
            let contact = report.contact
            let merged = report.merged.map { "\($0.number) (\($0.name ?? ""))" }.joined(separator: ", ")
            try session.confirm("Merge \(merged) into contact \(contact.number) (\(contact.name ?? "")), deleting \(report.merged.count == 1 ? "it" : "them")?",
                                refusal: "not merging without --yes (no terminal to ask on)", declined: "nothing merged", yes: yes)
            // What the others were, read before the save turns them into deleted objects.
            let mergedJSON: [[String: Any]] = report.merged.map {
                ["number": $0.number, "id": $0.uuid?.uuidString.lowercased() ?? "", "name": $0.name ?? ""]
            }
            let mergedText = report.merged.map { "contact \($0.number) (\($0.name ?? ""))" }
            try session.commit()
            if global.json {
                let presenter = session.presenter(.contact)
                try session.print(RecordPresenter.json([
                    "contact": presenter.jsonObject(contact),
                    "merged": mergedJSON,
                    "dropped": report.dropped.map { ["field": $0.field, "value": $0.value, "from": $0.from] as [String: Any] },
                ] as [String: Any]))
                return
            }
            try session.printChanged([contact], kind: .contact, verb: "Merged into") { _ in
                var lines = ["merged: " + mergedText.joined(separator: ", ")]
                if !report.filled.isEmpty { lines.append("took: " + report.filled.joined(separator: ", ")) }
                func counts(_ items: [(what: String, count: Int)]) -> String {
                    items.map { "\($0.count) \($0.count == 1 ? Self.singular($0.what) : $0.what)" }.joined(separator: ", ")
                }
                if !report.added.isEmpty { lines.append("added: " + counts(report.added)) }
                if !report.movedTo.isEmpty { lines.append("now naming it: " + counts(report.movedTo)) }
                if report.joinedNotes { lines.append("notes: joined") }
                if let source = report.tookSource {
                    lines.append("bound to: \(source)" + (report.leftSource.map { " (no longer to the import \($0))" } ?? ""))
                }
                lines += report.dropped.map { "dropped \($0.field) \"\($0.value)\" of contact \($0.from)" }
                return lines
            }
        }

        /// `e-mail addresses` as one: `e-mail address`.
        static func singular(_ plural: String) -> String {
            plural.hasSuffix("addresses") ? String(plural.dropLast(2)) : String(plural.dropLast())
        }
    }

    struct Phone: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The phone numbers of the contacts whose text contains every word (all with none), for dialers and SMS tools.",
            discussion: """
                One line per number: the number, the contact's name and the number's label, separated by tabs, by \
                contact name, as khard's phone --parsable prints them. --json prints the numbers as objects. Exit 1 \
                when no contact with a number matches.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The words (parts of names, nicknames, organizations, numbers or addresses).") var words: [String] = []

        func run() throws {
            let session = try Session(global)
            let numbers = try session.store.phoneNumbers(matching: words)
            if global.json {
                try session.print(RecordPresenter.json(numbers.map { ["number": $0.number, "name": $0.name, "label": $0.label, "contact": $0.contact] as [String: Any] }))
            } else if !numbers.isEmpty {
                try session.print(numbers.map { [$0.number, $0.name, $0.label].map(Email.clean).joined(separator: "\t") }.joined(separator: "\n") + "\n")
            }
            if numbers.isEmpty { throw PIMError.noMatch("no contact with a phone number matches") }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write contacts as vCard 3.0 or 4.0 (all, those named, or those --where or --group selects).",
            discussion: """
                Address books (Apple Contacts, Outlook, Google, khard) and `pim import` read the text back. \
                vCard 3.0 (RFC 2426) is what every address book reads; --vcard-version 4.0 writes RFC 6350's \
                cards (KIND:org, urn:uuid: UIDs, dates as 19900401, photos as data: URIs).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var export: ExportOptions
        @Option(help: ArgumentHelp("Only members of this group.", valueName: "group")) var group: String?
        @Option(name: .customLong("vcard-version"), help: ArgumentHelp("3.0 (the default) or 4.0.", valueName: "version"))
        var vCardVersion: String = VCardVersion.v3.rawValue

        func validate() throws {
            if group != nil, !export.ids.isEmpty { throw ValidationError("--group selects contacts: give it or contact ids, not both") }
            if VCardVersion(rawValue: vCardVersion) == nil {
                throw ValidationError("--vcard-version: \"\(vCardVersion)\" is not one of \(VCardVersion.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() throws {
            try RecordCommands.export(export, kind: .contact, global: global, vCardVersion: VCardVersion(rawValue: vCardVersion) ?? .v3) { session, query in
                if let group { query.filters = [try session.store.contactsPredicate(inGroup: group)] }
            }
        }
    }

    struct GroupCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "group",
            abstract: "Group contacts.",
            subcommands: [AddMembers.self, List.self, Members.self])

        struct AddMembers: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add contacts to a group, making it if needed.")

            @OptionGroup var global: GlobalOptions
            @Argument(help: "The group's number or name (a new name makes the group).") var group: String
            @Argument(help: "The contacts.") var contacts: [String] = []

            func run() throws {
                let session = try Session(global)
                let (made, isNew) = try session.store.addToGroup(self.group, contacts: contacts)
                try session.commit()
                // Another run may have saved a group of this name meanwhile: the contacts joined it.
                guard let group = session.store.survivor(of: made) as? Group else { return }
                try session.printChanged([group], kind: .group, verb: isNew && group === made ? "Added" : "Updated") { _ in
                    ["members: " + group.members.compactMap(\.name).sorted().joined(separator: ", ")]
                }
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List groups.", aliases: ["ls"])

            @OptionGroup var global: GlobalOptions
            @OptionGroup var list: ListOptions

            func run() throws {
                let session = try Session(global)
                try session.printList(list.query(.group), fieldNames: list.fieldNames)
            }
        }

        struct Members: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a group's members.")

            @OptionGroup var global: GlobalOptions
            @OptionGroup var list: ListOptions
            @Argument(help: "The group.") var group: String

            func run() throws {
                let session = try Session(global)
                var query = list.query(.contact)
                query.filters = [try session.store.contactsPredicate(inGroup: group)]
                try session.printList(query, fieldNames: list.fieldNames)
            }
        }
    }
}
