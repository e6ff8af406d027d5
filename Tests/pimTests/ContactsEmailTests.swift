// `pim contacts email`: the address query mail programs run (aerc's address-book-cmd, mutt's and
// neomutt's query_command with --mutt), end to end on the built binary: one tab-separated line per
// address, by contact name, matched on any word of a name, nickname, organization or address,
// ignoring case and accents; JSON; exit 1 when nothing matches.
import Foundation
import XCTest

final class ContactsEmailTests: PimTestCase {
    private func lines(_ run: PimRun) -> [String] {
        run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    private func addContacts() throws {
        XCTAssertEqual(try pim("contacts", "add", "Zoë Quinn", "--email", "work:zoe@example.org", "--email", "home:zq@home.example",
                               "--nickname", "Zed").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "ann lee", "--email", "ann@lee.example", "--org", "Example Ltd").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Nomail", "--phone", "+1 555 0100").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Globex", "--kind", "organization", "--email", "info@globex.example").status, 0)
    }

    func testEveryAddressOfTheMatchingContactsIsOneTabSeparatedLine() throws {
        try addContacts()
        let all = try pim("contacts", "email")
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(all.stdout, """
            ann@lee.example\tann lee\t
            info@globex.example\tGlobex\t
            zoe@example.org\tZoë Quinn\twork
            zq@home.example\tZoë Quinn\thome

            """)
        // Any word of a name (without its accent), a nickname, an organization or an address.
        for (words, expected) in [(["zoe"], ["zoe@example.org", "zq@home.example"]), (["zed"], ["zoe@example.org", "zq@home.example"]),
                                  (["example", "ltd"], ["ann@lee.example"]), (["globex.ex"], ["info@globex.example"])] {
            let run = try pim(arguments: ["contacts", "email"] + words)
            XCTAssertEqual(run.status, 0, "\(words): \(run.stderr)")
            XCTAssertEqual(lines(run).map { String($0.split(separator: "\t")[0]) }, expected, "\(words)")
        }
    }

    func testMuttGetsAStatusLineFirstAndNothingMatchingExitsOne() throws {
        try addContacts()
        let mutt = try pim("contacts", "email", "--mutt", "lee")
        XCTAssertEqual(mutt.status, 0, mutt.stderr)
        XCTAssertEqual(lines(mutt), ["pim: 1 address", "ann@lee.example\tann lee\t"])
        let none = try pim("contacts", "email", "--mutt", "nomail")
        XCTAssertEqual(none.status, 1, "a contact without an address is no match")
        XCTAssertEqual(lines(none), ["pim: no matches"])
        XCTAssertTrue(none.stderr.contains("no contact with an e-mail address matches"), none.stderr)
        let plain = try pim("contacts", "email", "nobody")
        XCTAssertEqual(plain.status, 1)
        XCTAssertEqual(plain.stdout, "")
    }

    func testJSONListsEachAddressWithItsContact() throws {
        try addContacts()
        let run = try pim("contacts", "email", "quinn", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let entries = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["address"] as? String }, ["zoe@example.org", "zq@home.example"])
        XCTAssertEqual(entries.map { $0["label"] as? String }, ["work", "home"])
        XCTAssertEqual(Set(entries.compactMap { $0["name"] as? String }), ["Zoë Quinn"])
        XCTAssertEqual(Set(entries.compactMap { $0["contact"] as? Int }), [1])
    }
}
