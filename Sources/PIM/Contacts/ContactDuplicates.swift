// `pim contacts duplicates`: contacts that are likely one person or organization, for `pim
// contacts merge`. Two contacts go together when they share an e-mail address (ignoring case), a
// phone number (its last nine digits, so that +44 7700 900123 and 07700 900123 meet), or a name
// (ignoring case, accents, punctuation and word order: "Smith, Ann" is Ann Smith, and O'Brien is
// OBrien); contacts linked through others form one set.
import Foundation
import ObjectGraph

/// What two or more contacts of a set of likely duplicates share.
public struct SharedValue: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case email, phone, name
    }

    public var kind: Kind
    /// The value as the first contact that has it writes it.
    public var value: String
}

/// Contacts that are likely one, by number, with what they share.
public struct DuplicateContacts {
    public var contacts: [Contact]
    public var shared: [SharedValue]
}

extension PIMStore {
    /// The sets of likely duplicate contacts, each by number, ordered by their first number.
    public func duplicateContacts() throws(PIMError) -> [DuplicateContacts] {
        var request = FetchRequest<Contact>(entityName: "Contact")
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        request.relationshipKeyPathsForPrefetching = ["emailAddresses", "phoneNumbers"]
        let contacts = try fetch(request)
        // Each key (`email:ann@example.org`) with the contacts that have it, in number order.
        var holders: [String: [Int]] = [:]
        var shown: [String: SharedValue] = [:]
        var keyOrder: [String] = []
        func note(_ key: String, _ value: SharedValue, _ index: Int) {
            if holders[key] == nil {
                keyOrder.append(key)
                shown[key] = value
            }
            if holders[key]?.last != index { holders[key, default: []].append(index) }
        }
        for (index, contact) in contacts.enumerated() {
            for email in contact.emailAddresses {
                guard let address = email.address?.trimmingCharacters(in: .whitespaces), !address.isEmpty else { continue }
                note("email:" + address.lowercased(), SharedValue(kind: .email, value: address), index)
            }
            for phone in contact.phoneNumbers {
                guard let number = phone.number, let key = Self.phoneKey(number) else { continue }
                note("phone:" + key, SharedValue(kind: .phone, value: number), index)
            }
            if let name = contact.name, let key = Self.nameKey(name) {
                note("name:" + key, SharedValue(kind: .name, value: name), index)
            }
        }
        // Sets by union-find over the contacts that share a key.
        var parent = Array(contacts.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        var linked: Set<Int> = []
        for key in keyOrder {
            guard let indices = holders[key], indices.count > 1 else { continue }
            linked.formUnion(indices)
            for index in indices.dropFirst() {
                let (a, b) = (root(indices[0]), root(index))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var sets: [Int: DuplicateContacts] = [:]
        for index in linked.sorted() {
            sets[root(index), default: DuplicateContacts(contacts: [], shared: [])].contacts.append(contacts[index])
        }
        for key in keyOrder {
            guard let indices = holders[key], indices.count > 1, let value = shown[key] else { continue }
            sets[root(indices[0])]?.shared.append(value)
        }
        return sets.keys.sorted().compactMap { sets[$0] }.filter { $0.contacts.count > 1 }
    }

    /// A phone number's last nine digits (all of them when it has fewer, but at least five), or
    /// nil for a number too short to tell contacts apart.
    static func phoneKey(_ number: String) -> String? {
        let digits = number.filter(\.isASCII).filter(\.isNumber)
        guard digits.count >= 5 else { return nil }
        return String(digits.suffix(9))
    }

    /// A name without case, accents, punctuation or word order (`smith ann`); nil when nothing is
    /// left.
    static func nameKey(_ name: String) -> String? {
        // Apostrophes join a word (O'Brien is OBrien); other punctuation parts words.
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .filter { !"'’ʼ`´".contains($0) }
        let words = folded.split { !$0.isLetter && !$0.isNumber }.map(String.init).sorted()
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
