// Adding contacts: a person (the name split into given and family names) or an organization,
// with labelled email addresses and phone numbers ("work:ann@example.org") kept in order.
import Foundation
import ObjectGraph

/// A contact to add, as the user typed it.
public struct ContactDraft: Sendable {
    public var name: String
    /// Whether the contact is an organization rather than a person.
    public var isOrganization = false
    /// Addresses, each optionally `label:address`.
    public var emails: [String] = []
    /// Numbers, each optionally `label:number`.
    public var phones: [String] = []
    /// Postal addresses, each optionally labelled, parts in vCard's order separated by `;`:
    /// `home:1 Main St;Springfield;IL;62701;USA` (street, locality, region, postal code, country).
    public var addresses: [String] = []
    public var organization: String?
    public var jobTitle: String?
    public var nickname: String?
    public var birthday: String?
    /// A person's wedding (or other) anniversary, typed as a birthday is.
    public var anniversary: String?
    public var notes: String?

    public init(name: String) { self.name = name }
}

extension PIMStore {
    /// Inserts the contact `draft` describes.
    public func addContact(_ draft: ContactDraft) throws(PIMError) -> Contact {
        let name = draft.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw PIMError.usage("a contact needs a name") }
        let birthday = try draft.birthday.map { text throws(PIMError) in try readDay(text, with: dateParser) }
        let anniversary = try draft.anniversary.map { text throws(PIMError) in try readDay(text, with: dateParser) }
        for email in draft.emails where !Self.labelled(email).value.contains("@") {
            throw PIMError.usage("email \"\(email)\": expected an address such as ann@example.org")
        }
        try Self.checkPhones(draft.phones)
        if draft.isOrganization {
            // A person's fields, refused as `edit` refuses them: nothing typed is dropped.
            let personal: [(String, String?)] = [("organization", draft.organization), ("jobTitle", draft.jobTitle),
                                                 ("nickname", draft.nickname), ("birthday", draft.birthday),
                                                 ("anniversary", draft.anniversary)]
            if let (field, _) = personal.first(where: { $0.1 != nil }) {
                throw PIMError.usage("organizations have no field \"\(field)\"")
            }
        }
        let contact: Contact
        if draft.isOrganization {
            guard let organization = insertRecord("Organization") as? Organization else {
                preconditionFailure("the Organization entity is not represented by its generated class")
            }
            contact = organization
        } else {
            guard let person = insertRecord("Person") as? Person else {
                preconditionFailure("the Person entity is not represented by its generated class")
            }
            Self.setNameParts(of: person, from: name)
            person.organization = draft.organization
            person.jobTitle = draft.jobTitle
            person.nickname = draft.nickname
            person.birthday = birthday
            person.anniversary = anniversary
            contact = person
        }
        contact.name = name
        contact.notes = draft.notes.flatMap { $0.isEmpty ? nil : $0 }
        for entry in draft.emails {
            let email = EmailAddress(context: context)
            (email.label, email.address) = Self.labelled(entry)
            contact.addToEmailAddresses(email)
        }
        for entry in draft.phones {
            let phone = PhoneNumber(context: context)
            (phone.label, phone.number) = Self.labelled(entry)
            contact.addToPhoneNumbers(phone)
        }
        for entry in draft.addresses { contact.addToPostalAddresses(postalAddress(entry)) }
        return contact
    }

    /// A new postal address from `label:street;locality;region;postal code;country`.
    func postalAddress(_ text: String) -> PostalAddress {
        let address = PostalAddress(context: context)
        let (label, value) = Self.labelled(text)
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map {
            let part = $0.trimmingCharacters(in: .whitespaces)
            return part.isEmpty ? nil : part
        }
        address.label = label
        address.street = parts.first ?? nil
        address.locality = parts.count > 1 ? parts[1] : nil
        address.region = parts.count > 2 ? parts[2] : nil
        address.postalCode = parts.count > 3 ? parts[3] : nil
        address.country = parts.count > 4 ? parts[4] : nil
        return address
    }

    /// A postal address as `label:street;locality;region;postal code;country`.
    static func postalAddressText(_ address: PostalAddress) -> String {
        let parts = [address.street, address.locality, address.region, address.postalCode, address.country].map { $0 ?? "" }
        var text = parts.joined(separator: ";")
        while text.hasSuffix(";") { text.removeLast() }
        return (address.label.map { $0 + ":" } ?? "") + text
    }

    /// Refuses a phone entry with no number (`mobile:`, `mobile:abc`: no digit), naming it as
    /// typed. Letters may stand beside digits (`+1 800 FLOWERS`, `ext. 12`).
    static func checkPhones(_ entries: [String]) throws(PIMError) {
        for entry in entries where !labelled(entry).value.contains(where: \.isNumber) {
            throw PIMError.usage("phone \"\(entry)\": expected a number such as mobile:+44 7700 900123")
        }
    }

    /// `work:ann@example.org` as its label and value; no label when there is no `label:` prefix.
    static func labelled(_ text: String) -> (label: String?, value: String) {
        guard let colon = text.firstIndex(of: ":"), !text[..<colon].contains("@"), !text[..<colon].contains("+"),
              !text[..<colon].isEmpty, text[..<colon].allSatisfy(\.isLetter) else {
            return (nil, text.trimmingCharacters(in: .whitespaces))
        }
        return (String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// A person's given name (the first word of `name`) and family name (the rest), as `add`
    /// and a renaming `edit` set them.
    static func setNameParts(of person: Person, from name: String) {
        let parts = name.split(separator: " ").map(String.init)
        person.givenName = parts.first
        person.familyName = parts.count > 1 ? parts.dropFirst().joined(separator: " ") : nil
    }
}
