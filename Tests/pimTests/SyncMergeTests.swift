// `pim contacts merge` through a real Radicale address book: two synced cards merged leave one on
// the server, which another device then reads as one contact; a phone's card merged into a
// contact typed here stays the phone's card (its href, its UID, what pim does not read of it).
import Foundation
import XCTest

final class SyncMergeTests: SyncTestCase {
    private func cards() throws -> [(href: String, text: String)] {
        try server.resources(in: "/alice/contacts/").map { ($0, try server.text(of: $0)) }
    }

    private func show(_ contact: String, on storeURL: URL? = nil) throws -> [String: Any] {
        let shown = try run("contacts", "show", contact, "--json", on: storeURL)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return try XCTUnwrap(shown.json() as? [String: Any])
    }

    func testTwoSyncedCardsMergedLeaveOneOnTheServerAndOnTheOtherDevice() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ann Smith", "--email", "ann@example.org").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Ann Smith (work)", "--email", "ann.smith@corp.example").status, 0)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[contactsURL], "sent"), 2)
        try addCollections(on: other)
        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        XCTAssertEqual(try list("contacts", on: other).count, 2)

        let merged = try run("contacts", "merge", "Ann Smith", "Ann Smith (work)", "--yes")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let report = try syncRun(on: nil, []).reports[contactsURL]
        XCTAssertEqual(count(report, "sent"), 1, "\(String(describing: report))")
        XCTAssertEqual(count(report, "removed"), 1, "the merged card is deleted on the server: \(String(describing: report))")
        let left = try cards()
        XCTAssertEqual(left.count, 1)
        XCTAssertTrue(left[0].text.contains("FN:Ann Smith\r\n") && left[0].text.contains("ann.smith@corp.example"), left[0].text)

        XCTAssertEqual(try syncRun(on: other, []).run.status, 0)
        let contacts = try list("contacts", on: other)
        XCTAssertEqual(contacts.compactMap { $0["name"] as? String }, ["Ann Smith"])
        let ann = try show("Ann Smith", on: other)
        XCTAssertEqual((ann["emails"] as? [[String: Any]])?.compactMap { $0["value"] as? String }, ["ann@example.org", "ann.smith@corp.example"])
    }

    /// A contact typed here and not sent yet, merged with a card a phone wrote (read at an
    /// earlier sync): the contact takes the card over, so the next sync updates the phone's card
    /// in place, with its UID and what pim does not read of it, instead of deleting it.
    func testAPhonesCardMergedIntoAContactTypedHereStaysThePhonesCard() throws {
        try addCollections()
        let phone = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:PHONE-ANN-1\r
            FN:Annie\r
            N:;Annie;;;\r
            TEL;TYPE=CELL:07700 900123\r
            X-SOCIALPROFILE;TYPE=mastodon:https://social.example/@ann\r
            END:VCARD\r

            """
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/phone-ann.vcf", headers: ["Content-Type": "text/vcard"], body: phone).status, 201)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[contactsURL], "added"), 1)

        XCTAssertEqual(try run("contacts", "add", "Ann Smith", "--email", "ann@example.org", "--phone", "mobile:+44 7700 900123").status, 0)
        let duplicates = try run("contacts", "duplicates", "--json")
        XCTAssertEqual(duplicates.status, 0, "they share a number: \(duplicates.stderr)")
        let merged = try run("contacts", "merge", "Ann Smith", "Annie", "--yes")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("  bound to: \(contactsURL)\n"), merged.stdout)

        let report = try syncRun(on: nil, []).reports[contactsURL]
        XCTAssertEqual(count(report, "sent"), 1, "\(String(describing: report))")
        XCTAssertEqual(count(report, "removed"), 0, "\(String(describing: report))")
        let left = try cards()
        XCTAssertEqual(left.map(\.href), ["/alice/contacts/phone-ann.vcf"], "the phone's card, in place")
        let text = left[0].text
        for line in ["UID:PHONE-ANN-1\r\n", "FN:Ann Smith\r\n", "ann@example.org", "X-SOCIALPROFILE;TYPE=mastodon:https://social.example/@ann\r\n"] {
            XCTAssertTrue(text.contains(line), "\(line):\n\(text)")
        }
        XCTAssertEqual(text.components(separatedBy: "TEL").count - 1, 1, "one number, as pim has it: \(text)")

        // Nothing more to do on the next run, and the contact here is the one typed here.
        let quiet = try syncRun(on: nil, []).reports[contactsURL]
        XCTAssertEqual(count(quiet, "sent") + count(quiet, "added") + count(quiet, "updated"), 0, "\(String(describing: quiet))")
        XCTAssertEqual(try list("contacts").compactMap { $0["name"] as? String }, ["Ann Smith"])
        XCTAssertEqual(try show("Ann Smith")["number"] as? Int, 2)
    }

    /// A phone's card merged into an imported contact: the imported one takes the card (else the
    /// person would go from the server and every device) and leaves its feed, as the output says.
    /// Failed before its fix: only a contact with no source took a card, so the sync deleted the
    /// phone's card.
    func testAPhonesCardMergedIntoAnImportedContactStaysThePhonesCard() throws {
        try addCollections()
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/phone-ann.vcf", headers: ["Content-Type": "text/vcard"], body: [
            "BEGIN:VCARD", "VERSION:3.0", "UID:PHONE-ANN-1", "FN:Annie", "N:;Annie;;;", "TEL;TYPE=CELL:07700 900123", "END:VCARD", "",
        ].joined(separator: "\r\n")).status, 201)
        XCTAssertEqual(count(try syncRun(on: nil, []).reports[contactsURL], "added"), 1)
        let card = folder.appendingPathComponent("ann.vcf")
        try "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:work-ann-1\r\nFN:Ann Smith\r\nN:Smith;Ann;;;\r\nEMAIL:ann@example.org\r\nEND:VCARD\r\n"
            .write(to: card, atomically: true, encoding: .utf8)
        XCTAssertEqual(try run("import", card.path).status, 0)

        let merged = try run("contacts", "merge", "Ann Smith", "Annie", "--yes")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("  bound to: \(contactsURL) (no longer to the import vcard)\n"), merged.stdout)
        let report = try syncRun(on: nil, []).reports[contactsURL]
        XCTAssertEqual(count(report, "sent"), 1, "\(String(describing: report))")
        XCTAssertEqual(count(report, "removed"), 0, "the person stays on the server: \(String(describing: report))")
        let left = try cards()
        XCTAssertEqual(left.map(\.href), ["/alice/contacts/phone-ann.vcf"])
        XCTAssertTrue(left[0].text.contains("UID:PHONE-ANN-1\r\n") && left[0].text.contains("ann@example.org"), left[0].text)
    }
}
