// `pim contacts`: add, list and show contacts (persons and organizations).
import ArgumentParser
import Foundation
import PIM

struct ContactsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "Add, list and show contacts.",
        subcommands: [Add.self, List.self, Show.self],
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
        @Option(help: ArgumentHelp("The organization a person works for.", valueName: "name")) var org: String?
        @Option(name: .customLong("title"), help: ArgumentHelp("A person's job title.", valueName: "title")) var jobTitle: String?
        @Option(help: "A person's nickname.") var nickname: String?
        @Option(help: ArgumentHelp("A person's birthday: 1990-04-01.", valueName: "date")) var birthday: String?
        @Option(help: "person (the default) or organization.") var kind: Kind = .person
        @Option(help: "Notes.") var notes: String?

        func run() throws {
            let session = try Session(global)
            var draft = ContactDraft(name: name.joined(separator: " "))
            draft.isOrganization = kind == .organization
            draft.emails = emails
            draft.phones = phones
            draft.organization = org
            draft.jobTitle = jobTitle
            draft.nickname = nickname
            draft.birthday = birthday
            draft.notes = notes
            let contact = try session.store.addContact(draft)
            try session.commit()
            session.printChanged([contact], kind: .contact, verb: "Added") { _ in
                ((contact as? Person)?.birthday).map { ["birthday \(session.echo($0, dateOnly: true))"] } ?? []
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List contacts by name.", aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions

        func run() throws {
            let session = try Session(global)
            try session.printList(try session.store.list(list.query(.contact)), kind: .contact, fieldNames: list.fieldNames)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a contact.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The contact: number, UUID (prefix) or name.") var id: String

        func run() throws {
            let session = try Session(global)
            session.printRecord(try RecordResolver(store: session.store).resolve(id, as: .contact), kind: .contact)
        }
    }
}
