// VCardWriter's group cards in both versions: Apple's X-ADDRESSBOOKSERVER extensions in vCard
// 3.0 (what pim sync sends), RFC 6350's KIND:group and MEMBER in 4.0, each member by its
// `urn:uuid:` UID.
import Foundation
import XCTest
@testable import PIM

final class VCardWriterTests: PIMStoreTestCase {
    func testAGroupCardNamesItsMembersInEitherVersion() throws {
        let store = try open()
        let ann = try store.addContact(ContactDraft(name: "Ann Lee"))
        let bob = try store.addContact(ContactDraft(name: "Bob Ray"))
        let (group, _) = try store.group(named: "Family")
        group.addToMembers(ann)
        group.addToMembers(bob)
        let members = [ann, bob].compactMap { $0.uuid?.uuidString.lowercased() }.sorted().map { "urn:uuid:" + $0 }
        XCTAssertEqual(members.count, 2)
        let uid = try XCTUnwrap(group.uuid?.uuidString.lowercased())

        let three = VCardWriter().groupCard(for: group).components(separatedBy: "\r\n")
        XCTAssertEqual(Array(three.prefix(2)), ["BEGIN:VCARD", "VERSION:3.0"])
        for line in ["UID:\(uid)", "FN:Family", "N:Family", "X-ADDRESSBOOKSERVER-KIND:group"] + members.map({ "X-ADDRESSBOOKSERVER-MEMBER:" + $0 }) {
            XCTAssertTrue(three.contains(line), "\(line) in\n\(three.joined(separator: "\n"))")
        }

        let four = VCardWriter(version: .v4).groupCard(for: group).components(separatedBy: "\r\n")
        XCTAssertEqual(Array(four.prefix(2)), ["BEGIN:VCARD", "VERSION:4.0"])
        for line in ["UID:urn:uuid:\(uid)", "FN:Family", "KIND:group"] + members.map({ "MEMBER:" + $0 }) {
            XCTAssertTrue(four.contains(line), "\(line) in\n\(four.joined(separator: "\n"))")
        }
        XCTAssertFalse(four.contains { $0.hasPrefix("X-ADDRESSBOOKSERVER") || $0.hasPrefix("N:") }, four.joined(separator: "\n"))
    }
}
