// `pim contacts duplicates` and `pim contacts merge`, end to end on the built binary: sets of
// contacts sharing an address, a number or a name; a merge that fills what the first lacks, joins
// lists, moves events, tasks and groups, reports what it dropped, deletes the others with their
// record files, and is undone whole; an imported contact merged into one typed here is not
// brought back by importing its file again.
import Foundation
import XCTest

final class ContactsMergeTests: PimTestCase {
    private func show(_ contact: String) throws -> [String: Any] {
        let run = try pim("contacts", "show", contact, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any])
    }

    /// A list of labelled values (`emails`, `phones`) as `label:value` (`value` without a label).
    private func labelled(_ object: [String: Any], _ key: String) -> [String]? {
        (object[key] as? [[String: Any]])?.map { item in
            (item["label"] as? String).map { $0 + ":" }.map { $0 + (item["value"] as? String ?? "") } ?? item["value"] as? String ?? ""
        }
    }

    /// The names of a list of linked records (`attendees`), sorted.
    private func names(_ object: [String: Any]?, _ key: String) -> [String]? {
        (object?[key] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted()
    }

    private func contactNames() throws -> [String] {
        let run = try pim("contacts", "list", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [[String: Any]]).compactMap { $0["name"] as? String }
    }

    /// Ann twice (typed, and as an address book writes her), Bob who shares her old address, and
    /// Carol alone; an event Ann's second card attends, a task assigned to it, a group it is in.
    private func addAnnTwice() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Smith", "--email", "ann@example.org", "--phone", "mobile:+44 7700 900123",
                               "--birthday", "1990-04-01").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Smith, Ann", "--email", "work:ann.smith@corp.example", "--email", "ANN@example.org",
                               "--phone", "07700 900123", "--phone", "work:+44 20 7946 0000", "--nickname", "Annie",
                               "--birthday", "1990-04-02", "--address", "work:1 Main St;London;;EC1A 1BB;UK", "--notes", "Met at the fair").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob Jones", "--email", "bob@example.org", "--phone", "+1 212 555 0100").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Carol", "--email", "carol@example.org").status, 0)
        XCTAssertEqual(try pim("events", "add", "Lunch", "--start", "2026-11-26 12:00", "--attendee", "2", "--attendee", "3").status, 0)
        XCTAssertEqual(try pim("tasks", "add", "Send slides", "--assignee", "2").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "Fair", "2", "3").status, 0)
    }

    func testDuplicatesListsSetsLinkedByAddressNumberOrName() throws {
        XCTAssertEqual(try pim("contacts", "duplicates").status, 1, "an empty store has none")
        try addAnnTwice()
        // Dora shares Bob's number written otherwise (its last nine digits), Carol Ng no more than a
        // first name with Carol.
        XCTAssertEqual(try pim("contacts", "add", "Dora Jones", "--phone", "(212) 555-0100").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Carol Ng").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Zoë Ádám", "--email", "z@example.org").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "adam zoe").status, 0)

        let run = try pim("contacts", "duplicates", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let sets = try XCTUnwrap(run.json() as? [[String: Any]])
        let numbers = sets.map { ($0["contacts"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int } }
        XCTAssertEqual(numbers, [[1, 2], [3, 5], [7, 8]], "Carol and Carol Ng share no more than a word: \(run.stdout)")
        let shared = sets.map { ($0["shared"] as? [[String: String]] ?? []).map { "\($0["kind"] ?? ""):\($0["value"] ?? "")" } }
        XCTAssertEqual(shared, [["email:ann@example.org", "phone:+44 7700 900123", "name:Ann Smith"], ["phone:+1 212 555 0100"], ["name:Zoë Ádám"]])

        let text = try pim("contacts", "duplicates")
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.stdout.contains("shared: e-mail ann@example.org; phone +44 7700 900123; name Ann Smith\nmerge:  pim contacts merge 1 2\n"),
                      text.stdout)
        XCTAssertTrue(text.stdout.contains("merge:  pim contacts merge 3 5\n"), text.stdout)
    }

    func testMergeFillsJoinsMovesAndReportsWhatItDropped() throws {
        try addAnnTwice()
        let merged = try pim("contacts", "merge", "1", "2", "--yes")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.hasPrefix("Merged into contact 1 ("), merged.stdout)
        for line in ["  merged: contact 2 (Smith, Ann)", "  took: nickname, notes", "  added: 1 e-mail address, 1 phone number, 1 postal address",
                     "  now naming it: 1 event, 1 task, 1 group", "  dropped name \"Smith, Ann\" of contact 2",
                     "  dropped birthday \"1990-04-02\" of contact 2", "  dropped phone \"07700 900123\" of contact 2"] {
            XCTAssertTrue(merged.stdout.contains(line + "\n"), "\(line):\n\(merged.stdout)")
        }

        let ann = try show("1")
        XCTAssertEqual(ann["name"] as? String, "Ann Smith")
        XCTAssertEqual(ann["birthday"] as? String, "1990-04-01", "the first keeps its own")
        XCTAssertEqual(ann["nickname"] as? String, "Annie", "and takes what it lacks")
        XCTAssertEqual(ann["notes"] as? String, "Met at the fair")
        XCTAssertEqual(labelled(ann, "emails"), ["ann@example.org", "work:ann.smith@corp.example"], "one address once, ignoring case")
        XCTAssertEqual(labelled(ann, "phones"), ["mobile:+44 7700 900123", "work:+44 20 7946 0000"])
        XCTAssertEqual((ann["addresses"] as? [Any])?.count, 1)
        XCTAssertEqual(try contactNames(), ["Ann Smith", "Bob Jones", "Carol"])

        let lunch = try XCTUnwrap(try pim("events", "show", "Lunch", "--json").json() as? [String: Any])
        XCTAssertEqual(names(lunch, "attendees"), ["Ann Smith", "Bob Jones"])
        let task = try XCTUnwrap(try pim("tasks", "show", "Send slides", "--json").json() as? [String: Any])
        XCTAssertEqual((task["assignee"] as? [String: Any])?["name"] as? String, "Ann Smith")
        let members = try pim("contacts", "group", "members", "Fair", "--json")
        XCTAssertEqual(try XCTUnwrap(members.json() as? [[String: Any]]).compactMap { $0["name"] as? String }, ["Ann Smith", "Bob Jones"])
        XCTAssertEqual(try pim("contacts", "duplicates").status, 1, "none left")

        // Undone whole: both contacts as they were, and what named the second names it again.
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try contactNames(), ["Ann Smith", "Bob Jones", "Carol", "Smith, Ann"])
        let first = try show("1")
        XCTAssertTrue(first["nickname"] is NSNull, "\(first)")
        XCTAssertEqual(labelled(first, "emails"), ["ann@example.org"])
        let second = try show("2")
        XCTAssertEqual(labelled(second, "emails"), ["work:ann.smith@corp.example", "ANN@example.org"])
        XCTAssertEqual(labelled(second, "phones"), ["07700 900123", "work:+44 20 7946 0000"])
        let again = try XCTUnwrap(try pim("events", "show", "Lunch", "--json").json() as? [String: Any])
        XCTAssertEqual(names(again, "attendees"), ["Bob Jones", "Smith, Ann"])
        let reassigned = try XCTUnwrap(try pim("tasks", "show", "Send slides", "--json").json() as? [String: Any])
        XCTAssertEqual((reassigned["assignee"] as? [String: Any])?["name"] as? String, "Smith, Ann")

        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try contactNames(), ["Ann Smith", "Bob Jones", "Carol"])
    }

    func testMergeJSONAndRefusals() throws {
        try addAnnTwice()
        let asked = try pim("contacts", "merge", "1", "2")
        XCTAssertEqual(asked.status, 6, "no terminal to ask on: \(asked.stderr)")
        XCTAssertTrue(asked.stderr.contains("--yes"), asked.stderr)
        XCTAssertEqual(try pim("contacts", "merge", "1").status, 2)
        let twice = try pim("contacts", "merge", "1", "Ann Smith", "--yes")
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.stderr.contains("contact 1 (Ann Smith) a second time"), twice.stderr)
        XCTAssertEqual(try pim("contacts", "merge", "1", "99", "--yes").status, 3)
        XCTAssertEqual(try contactNames(), ["Ann Smith", "Bob Jones", "Carol", "Smith, Ann"], "nothing merged")

        // Three into one: Carol's address joins too; --json names them and what was dropped.
        let run = try pim("contacts", "merge", "1", "2", "Carol", "--yes", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(run.json() as? [String: Any])
        XCTAssertEqual(labelled(try XCTUnwrap(object["contact"] as? [String: Any]), "emails"),
                       ["ann@example.org", "work:ann.smith@corp.example", "carol@example.org"])
        XCTAssertEqual((object["merged"] as? [[String: Any]])?.compactMap { $0["number"] as? Int }, [2, 4])
        let dropped = try XCTUnwrap(object["dropped"] as? [[String: Any]])
        XCTAssertEqual(dropped.compactMap { $0["field"] as? String }, ["name", "birthday", "phone", "name"])
        XCTAssertEqual(dropped.last?["value"] as? String, "Carol")
        XCTAssertEqual(dropped.last?["from"] as? Int, 4)
        XCTAssertEqual(try contactNames(), ["Ann Smith", "Bob Jones"])
    }

    func testAnOrganizationKeepsNoPersonsFieldsAndSaysSo() throws {
        XCTAssertEqual(try pim("contacts", "add", "Globex", "--kind", "organization", "--email", "info@globex.example").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Globex Reception", "--org", "Globex", "--birthday", "2001-02-03",
                               "--phone", "+1 555 0199").status, 0)
        let run = try pim("contacts", "merge", "Globex", "Reception", "--yes")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  dropped organization \"Globex\" of contact 2\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  dropped birthday \"2001-02-03\" of contact 2\n"), run.stdout)
        let globex = try show("Globex")
        XCTAssertEqual(globex["kind"] as? String, "organization")
        XCTAssertEqual(labelled(globex, "phones"), ["+1 555 0199"])
    }

    func testTheMergedContactsRecordFileGoes() throws {
        try addAnnTwice()
        let records = try storeRecords()
        let second = records.appendingPathComponent("Person/p2.pimcontact")
        XCTAssertTrue(FileManager.default.fileExists(atPath: second.path))
        XCTAssertEqual(try pim("contacts", "merge", "1", "2", "--yes").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: second.path), "the merged contact's record file is removed")
        let first = try String(contentsOf: records.appendingPathComponent("Person/p1.pimcontact"), encoding: .utf8)
        XCTAssertTrue(first.contains("ann.smith@corp.example"), "the kept contact's file has what it gained")
    }

    /// A contact imported from a vCard file, merged into one typed here: the typed one keeps its
    /// own identity and values when the file is imported again, and the card comes back as a
    /// contact of its own, as a deleted one does.
    func testAnImportedContactMergedIntoATypedOneComesBackAsADeletedOneDoes() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Smith", "--email", "ann@example.org").status, 0)
        let card = folder.appendingPathComponent("ann.vcf")
        try """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:card-ann-1\r
            FN:Ann B. Smith\r
            N:Smith;Ann;B.;;\r
            EMAIL;TYPE=WORK:ann.smith@corp.example\r
            TEL;TYPE=CELL:+44 7700 900123\r
            END:VCARD\r

            """.write(to: card, atomically: true, encoding: .utf8)
        XCTAssertEqual(try pim("import", card.path).status, 0)
        XCTAssertEqual(try contactNames(), ["Ann B. Smith", "Ann Smith"])
        let merged = try pim("contacts", "merge", "Ann Smith", "Ann B. Smith", "--yes")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertFalse(merged.stdout.contains("bound to"), merged.stdout)

        let again = try pim("import", card.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try contactNames(), ["Ann B. Smith", "Ann Smith"], "the card is a contact again: \(again.stdout)")
        let ann = try show("1")
        XCTAssertEqual(ann["name"] as? String, "Ann Smith")
        XCTAssertEqual(labelled(ann, "emails"), ["ann@example.org", "work:ann.smith@corp.example"], "the merged contact as it was")
        XCTAssertFalse(try pim("contacts", "export", "1").stdout.contains("UID:card-ann-1"))
    }
}
