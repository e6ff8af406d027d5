// `pim contacts email`: the e-mail addresses of the contacts a search finds, one per line, for
// mail programs' address queries (mutt's and neomutt's query_command, aerc's address-book-cmd),
// as khard's `email --parsable` and lbdb give them.
import Foundation
import ObjectGraph

/// One address of a contact, as an address query lists it.
public struct ContactEmail: Sendable, Equatable {
    public var address: String
    /// The contact's name.
    public var name: String
    /// The address's label (`work`), empty without one.
    public var label: String
    /// The contact's number.
    public var contact: Int64
}

extension PIMStore {
    /// The addresses of the contacts whose searchable text contains every word of `words` (all
    /// contacts with an address when there are none), by contact name (ignoring case), each
    /// contact's addresses in their order.
    public func emailAddresses(matching words: [String]) throws(PIMError) -> [ContactEmail] {
        let contacts = try contacts(having: "emailAddresses", matching: words)
        return contacts.flatMap { contact in
            contact.emailAddresses.compactMap { email -> ContactEmail? in
                guard let address = email.address, !address.isEmpty else { return nil }
                return ContactEmail(address: address, name: contact.name ?? "", label: email.label ?? "", contact: contact.number)
            }
        }
    }
}
