// `pim contacts phone`: the number query of dialers and SMS tools (khard's phone --parsable), end
// to end on the built binary: one tab-separated line per number, by contact name, matched on any
// word of a contact's text ignoring case and accents; JSON; exit 1 when nothing matches.
import Foundation
import XCTest

final class ContactsPhoneTests: PimTestCase {
    func testEveryNumberOfTheMatchingContactsIsOneTabSeparatedLine() throws {
        XCTAssertEqual(try pim("contacts", "add", "Zoë Quinn", "--phone", "mobile:+44 7700 900123", "--phone", "work:+44 20 7946 0000",
                               "--nickname", "Zed").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "ann lee", "--phone", "+1 212 555 0100", "--email", "ann@lee.example").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Nophone", "--email", "bob@example.org").status, 0)

        let all = try pim("contacts", "phone")
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(all.stdout, """
            +1 212 555 0100\tann lee\t
            +44 7700 900123\tZoë Quinn\tmobile
            +44 20 7946 0000\tZoë Quinn\twork

            """)
        let zed = try pim("contacts", "phone", "zoe")
        XCTAssertEqual(zed.stdout.split(separator: "\n").count, 2, zed.stdout)
        let json = try pim("contacts", "phone", "lee.example", "--json")
        let numbers = try XCTUnwrap(json.json() as? [[String: Any]])
        XCTAssertEqual(numbers.count, 1)
        XCTAssertEqual(numbers.first?["number"] as? String, "+1 212 555 0100")
        XCTAssertEqual(numbers.first?["contact"] as? Int, 2)

        let none = try pim("contacts", "phone", "bob")
        XCTAssertEqual(none.status, 1, "Bob has no number")
        XCTAssertEqual(none.stdout, "")
    }
}
