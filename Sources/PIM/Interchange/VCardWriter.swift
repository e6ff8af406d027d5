// `pim contacts export`: contacts as vCard 3.0 (RFC 2426), the version every address book
// reads (Apple Contacts, Outlook, Google, Thunderbird, khard), with the 4.0 properties 3.0
// readers skip where 3.0 has none (ANNIVERSARY); or as vCard 4.0 (RFC 6350: KIND, MEMBER,
// `urn:uuid:` UIDs, basic-format dates, lower-case types, photos as `data:` URIs). `pim import`
// reads either back (vcard.json).
import Foundation
import ObjectGraph

/// The vCard versions pim writes.
public enum VCardVersion: String, Sendable, CaseIterable {
    /// RFC 2426: what every address book reads, and what CardDAV servers must take.
    case v3 = "3.0"
    /// RFC 6350.
    case v4 = "4.0"
}

/// Writes contacts as vCards.
///
/// ```swift
/// let text = VCardWriter().cards(for: contacts)   // BEGIN:VCARD ... END:VCARD, CRLF lines
/// let four = VCardWriter(version: .v4).cards(for: contacts)
/// ```
public struct VCardWriter {
    /// The product identifier every card names.
    static let productID = "-//ObjectGraph//pim//EN"

    public var version: VCardVersion

    public init(version: VCardVersion = .v3) {
        self.version = version
    }

    /// The UID a record is written with: in vCard 4.0 a UUID as the `urn:uuid:` URI RFC 6350
    /// 6.7.6 recommends.
    private func uid(of record: ManagedObject) -> String? {
        guard let uid = ICalendarWriter.uid(of: record) else { return nil }
        return version == .v4 && UUID(uuidString: uid) != nil ? "urn:uuid:" + uid : uid
    }

    /// The vCards of `contacts`, in order, as one text.
    public func cards(for contacts: [Contact]) -> String {
        var lines = ContentLines()
        for contact in contacts { write(contact, to: &lines) }
        return lines.text
    }

    /// The group card of `group` (vCard 3.0 as Apple Contacts, iCloud and Nextcloud write them:
    /// `X-ADDRESSBOOKSERVER-KIND:group`, each member as `X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:`
    /// and its UID), which `pim sync` sends for a group read from a CardDAV server.
    public func groupCard(for group: Group) -> String {
        var lines = ContentLines()
        lines.begin("VCARD")
        lines.add("VERSION", value: version.rawValue)
        lines.add("PRODID", value: Self.productID)
        if let uid = uid(of: group) { lines.add("UID", text: uid) }
        lines.add("FN", text: group.name ?? "")
        // vCard 4.0 has a kind and members of its own; 3.0 cards use Apple's extensions.
        let four = version == .v4
        if !four { lines.add("N", value: ContentLines.structured([group.name])) }
        lines.add(four ? "KIND" : "X-ADDRESSBOOKSERVER-KIND", value: "group")
        if let notes = group.notes, !notes.isEmpty { lines.add("NOTE", text: notes) }
        for uid in group.members.compactMap({ ICalendarWriter.uid(of: $0) }).sorted() {
            lines.add(four ? "MEMBER" : "X-ADDRESSBOOKSERVER-MEMBER", value: "urn:uuid:" + uid)
        }
        if let modified = group.modified { lines.add("REV", value: ICalendarWriter.utcText(modified)) }
        lines.end("VCARD")
        return lines.text
    }

    private func write(_ contact: Contact, to lines: inout ContentLines) {
        let person = contact as? Person
        let organization = contact as? Organization
        let four = version == .v4
        lines.begin("VCARD")
        lines.add("VERSION", value: version.rawValue)
        lines.add("PRODID", value: Self.productID)
        if let uid = uid(of: contact) { lines.add("UID", text: uid) }
        if four, organization != nil { lines.add("KIND", value: "org") }
        lines.add("FN", text: contact.name ?? "")
        if let person {
            lines.add("N", value: ContentLines.structured([person.familyName, person.givenName, person.middleName, person.namePrefix, person.nameSuffix]))
            if let nickname = person.nickname, !nickname.isEmpty { lines.add("NICKNAME", text: nickname) }
            if let company = person.organization, !company.isEmpty { lines.add("ORG", value: ContentLines.structured([company])) }
            if let title = person.jobTitle, !title.isEmpty { lines.add("TITLE", text: title) }
            for (name, date) in [("BDAY", person.birthday), ("ANNIVERSARY", person.anniversary)] {
                guard let date else { continue }
                // A day without a year (kept as 1604): RFC 6350's `--MMDD`, or in 3.0, which has no
                // such form, Apple's 1604 with the parameter that says the year is none.
                if OutputFormat.isYearless(date) {
                    if four {
                        lines.add(name, value: "--" + OutputFormat.string(from: date, format: "MMdd", timeZone: TimeZone(secondsFromGMT: 0)!))
                    } else {
                        lines.add(name, ["X-APPLE-OMIT-YEAR": "1604"], value: Self.day(date))
                    }
                } else {
                    lines.add(name, value: Self.day(date, basic: four))
                }
            }
        } else if let organization {
            // A 3.0 organization's card has an empty N (3.0 requires one) and says what it is the
            // way Apple Contacts and Evolution read it; 4.0's says KIND:org (above).
            if !four { lines.add("N", value: ";;;;") }
            lines.add("ORG", value: ContentLines.structured([organization.name] + (organization.unit.map { [$0] } ?? [])))
            if !four { lines.add("X-ABSHOWAS", value: "COMPANY") }
        }
        for email in contact.emailAddresses {
            guard let address = email.address else { continue }
            lines.add("EMAIL", Self.types(email.label, lowercased: four), text: address)
        }
        for phone in contact.phoneNumbers {
            guard let number = phone.number else { continue }
            lines.add("TEL", Self.types(phone.label, phone: true, lowercased: four), text: number)
        }
        for address in contact.postalAddresses {
            lines.add("ADR", Self.types(address.label, lowercased: four), value: ContentLines.structured(
                ["", "", address.street, address.locality, address.region, address.postalCode, address.country]))
        }
        let groups = contact.groups.compactMap(\.name).sorted()
        if !groups.isEmpty { lines.add("CATEGORIES", value: groups.map(ContentLines.escaped).joined(separator: ",")) }
        if let url = contact.url { lines.add("URL", value: url.absoluteString) }
        if let notes = contact.notes, !notes.isEmpty { lines.add("NOTE", text: notes) }
        if let photo = contact.photo, !photo.isEmpty {
            if four {
                lines.add("PHOTO", value: "data:image/\(Self.imageType(photo).lowercased());base64," + photo.base64EncodedString())
            } else {
                lines.add("PHOTO", ["ENCODING": "b", "TYPE": Self.imageType(photo)], value: photo.base64EncodedString())
            }
        }
        if let modified = contact.modified { lines.add("REV", value: ICalendarWriter.utcText(modified)) }
        lines.end("VCARD")
    }

    /// A label as TYPE values: its words (`work fax` is `TYPE=work,fax`), which `pim import`
    /// joins back; a phone's `mobile` is vCard's `CELL`, which address books show as mobile
    /// (vCard 4.0's values are lower case: `cell`).
    static func types(_ label: String?, phone: Bool = false, lowercased: Bool = false) -> KeyValuePairs<String, String> {
        let words = (label ?? "").split(whereSeparator: { $0 == " " || $0 == "," })
            .map { phone && $0.lowercased() == "mobile" ? "CELL" : String($0) }
        let types = words.joined(separator: ",")
        return ["TYPE": lowercased ? types.lowercased() : types]
    }

    /// A day of no time zone (pim keeps birthdays as midnight UTC): `1990-04-01`, or in the basic
    /// format vCard 4.0 writes, `19900401`.
    static func day(_ date: Date, basic: Bool = false) -> String {
        OutputFormat.string(from: date, format: basic ? "yyyyMMdd" : "yyyy-MM-dd", timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// The image type of a photo, told from its first bytes.
    static func imageType(_ data: Data) -> String {
        let head = [UInt8](data.prefix(4))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "PNG" }
        if head.starts(with: [0x47, 0x49, 0x46]) { return "GIF" }
        return "JPEG"
    }
}
