// `pim contacts phone`: the phone numbers of the contacts a search finds, one per line, for
// dialers and SMS tools, as khard's `phone --parsable` gives them.
import Foundation
import ObjectGraph

/// One number of a contact, as a phone query lists it.
public struct ContactPhone: Sendable, Equatable {
    public var number: String
    /// The contact's name.
    public var name: String
    /// The number's label (`mobile`), empty without one.
    public var label: String
    /// The contact's number in pim.
    public var contact: Int64
}

extension PIMStore {
    /// The phone numbers of the contacts whose searchable text contains every word of `words`
    /// (all contacts with a number when there are none), by contact name (ignoring case), each
    /// contact's numbers in their order.
    public func phoneNumbers(matching words: [String]) throws(PIMError) -> [ContactPhone] {
        try contacts(having: "phoneNumbers", matching: words).flatMap { contact in
            contact.phoneNumbers.compactMap { phone -> ContactPhone? in
                guard let number = phone.number, !number.isEmpty else { return nil }
                return ContactPhone(number: number, name: contact.name ?? "", label: phone.label ?? "", contact: contact.number)
            }
        }
    }

    /// The contacts with at least one of `relationship` (`emailAddresses`, `phoneNumbers`, loaded
    /// with them) whose searchable text contains every word of `words` (all without words), by
    /// name ignoring case, then number.
    func contacts(having relationship: String, matching words: [String]) throws(PIMError) -> [Contact] {
        var query = RecordQuery(kind: .contact)
        do {
            query.filters = [try ObjectGraph.Predicate(format: "%K.@count > 0", relationship)]
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        let text = words.joined(separator: " ")
        if !text.trimmingCharacters(in: .whitespaces).isEmpty { query.filters.append(try searchPredicate(text, kind: .contact)) }
        query.relationshipKeyPaths = [relationship]
        return try list(query).compactMap { $0 as? Contact }
            .sorted { (($0.name ?? "").lowercased(), $0.number) < (($1.name ?? "").lowercased(), $1.number) }
    }
}
