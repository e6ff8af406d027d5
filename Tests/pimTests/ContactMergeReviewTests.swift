// Review of `pim contacts duplicates` and `pim contacts merge` (pim-contacts(1)), end to end on
// the built binary: what the merged contact keeps, takes and gains, what it reports dropped, the
// records that name it afterwards, undo and redo, exit statuses, JSON, record files, duplicates
// sets, and the bindings a merge takes over (pim import of the same file, pim sync with a real
// Radicale server and a second device).
import Foundation
import XCTest

final class ContactMergeReviewTests: PimTestCase {
    // MARK: Helpers

    private func ok(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try pim(arguments: arguments)
        XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)", file: file, line: line)
    }

    private func shown(_ reference: String) throws -> [String: Any] {
        let run = try pim("contacts", "show", reference, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any], run.stdout)
    }

    private func values(_ contact: [String: Any], _ key: String) -> [String] {
        (contact[key] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
    }

    private func merge(_ ids: String..., json: Bool = true) throws -> [String: Any] {
        let run = try pim(arguments: ["contacts", "merge"] + ids + ["--yes"] + (json ? ["--json"] : []))
        XCTAssertEqual(run.status, 0, run.stderr)
        return json ? try XCTUnwrap(run.json() as? [String: Any], run.stdout) : [:]
    }

    private func dropped(_ report: [String: Any]) -> [String] {
        (report["dropped"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? "") \($0["value"] ?? "")" }
    }

    /// Everything a merge may touch, as the commands print it.
    private func snapshot() throws -> [String] {
        try [["contacts", "list"], ["events", "list"], ["tasks", "list", "--all"], ["contacts", "group", "list"]].map { command in
            try pim(arguments: command + ["--json"]).stdout
        } + (1...4).map { try pim("contacts", "show", String($0), "--json").stdout }
            + (1...2).map { try pim("events", "show", String($0), "--json").stdout }
            + [try pim("contacts", "export").stdout]
    }

    /// An .ics file whose event has `organizer` as its ORGANIZER and `attendees` as ATTENDEEs
    /// (pim import links them to the contacts with those addresses).
    private func invitation(_ name: String, uid: String, organizer: String, attendees: [String]) throws -> String {
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//review//EN", "BEGIN:VEVENT", "UID:\(uid)",
                     "DTSTAMP:20261120T100000Z", "DTSTART:20261203T140000Z", "DTEND:20261203T150000Z", "SUMMARY:\(name)",
                     "ORGANIZER:mailto:\(organizer)"] + attendees.map { "ATTENDEE:mailto:\($0)" } + ["END:VEVENT", "END:VCALENDAR", ""]
        let url = folder.appendingPathComponent("\(uid).ics")
        try Data(lines.joined(separator: "\r\n").utf8).write(to: url)
        return url.path
    }

    // MARK: Undo and redo

    func testUndoAndRedoOfAMergeRestoreEveryValueAndLinkExactly() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "work:ann@work.example", "--phone", "mobile:+44 7700 900123",
               "--address", "home:1 Main St;Springfield;IL;62701;USA", "--nickname", "Annie", "--birthday", "1990-04-01", "--notes", "Met at a conference")
        try ok("contacts", "add", "Lee, Ann", "--email", "home:ANN@work.example", "--email", "ann@home.example", "--phone", "07700 900123",
               "--phone", "+1 555 0100", "--address", "1 main st;springfield;il;62701;usa", "--address", "2 Side St;Town;;;UK",
               "--birthday", "1990-04-02", "--org", "Acme", "--title", "CTO", "--notes", "Likes tea")
        try ok("contacts", "add", "Bob", "Stone", "--email", "bob@example.org")
        try ok("contacts", "add", "Carol", "Jones")
        try ok("contacts", "group", "add", "Family", "2", "3")
        try ok("contacts", "group", "add", "Work", "1", "2")
        try ok("events", "add", "Review", "--start", "fri 10:00", "--attendee", "2", "--attendee", "1", "--attendee", "3")
        XCTAssertEqual(try pim("import", try invitation("Board", uid: "board-1", organizer: "ann@home.example",
                                                         attendees: ["ann@home.example", "bob@example.org"])).status, 0)
        try ok("tasks", "add", "Slides", "--assignee", "2")
        try ok("tasks", "add", "Budget", "--assignee", "1")
        let board = try XCTUnwrap(try pim("events", "show", "2", "--json").json() as? [String: Any])
        XCTAssertEqual((board["organizer"] as? [String: Any])?["number"] as? Int, 2, "the fixture: contact 2 organizes Board")

        let before = try snapshot()
        _ = try merge("1", "2")
        let after = try snapshot()
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try snapshot(), before, "undo takes the whole merge back")
        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try snapshot(), after, "redo makes it again")
    }

    // MARK: What the merged contact keeps, takes and gains

    /// Failed before its fix: an event two merged contacts attended was counted twice ("now naming it: 2 events").
    func testThreeContactsMergeIntoTheFirstWithListsJoinedOnceAndLinksMoved() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example", "--phone", "+44 7700 900123")
        try ok("contacts", "add", "Annie", "--email", "ANN@WORK.example", "--email", "ann@home.example", "--nickname", "Annie",
               "--phone", "+1 555 0100", "--notes", "First note")
        try ok("contacts", "add", "A. Lee", "--email", "ann@home.example", "--email", "lee@club.example", "--nickname", "Nan",
               "--phone", "+1 (555) 0100", "--org", "Club", "--notes", "Second note")
        try ok("contacts", "group", "add", "Club", "3")
        try ok("contacts", "group", "add", "Friends", "2", "3")
        try ok("events", "add", "Dinner", "--start", "fri 19:00", "--attendee", "2", "--attendee", "3")
        try ok("tasks", "add", "Call", "--assignee", "3")
        try ok("tasks", "add", "Write", "--assignee", "2")

        let text = try pim("contacts", "merge", "1", "2", "3", "--yes")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout, """
            Merged into contact 1 (\(try shown("1")["id"] as? String ?? "")): Ann Lee
              merged: contact 2 (Annie), contact 3 (A. Lee)
              took: nickname, notes, organization
              added: 2 e-mail addresses, 1 phone number
              now naming it: 1 event, 2 tasks, 2 groups
              notes: joined
              dropped name "Annie" of contact 2
              dropped name "A. Lee" of contact 3
              dropped nickname "Nan" of contact 3

            """)
        let ann = try shown("1")
        XCTAssertEqual(values(ann, "emails"), ["ann@work.example", "ann@home.example", "lee@club.example"])
        XCTAssertEqual(values(ann, "phones"), ["+44 7700 900123", "+1 555 0100"])
        XCTAssertEqual(ann["nickname"] as? String, "Annie")
        XCTAssertEqual(ann["organization"] as? String, "Club")
        XCTAssertEqual(ann["notes"] as? String, "First note\n\nSecond note")
        XCTAssertEqual(Set((ann["groups"] as? [Any] ?? []).map { "\(($0 as? [String: Any])?["name"] ?? $0)" }), ["Club", "Friends"])
        XCTAssertEqual(try pim("contacts", "show", "2").status, 3)
        XCTAssertEqual(try pim("contacts", "show", "3").status, 3)
        let dinner = try XCTUnwrap(try pim("events", "show", "1", "--json").json() as? [String: Any])
        XCTAssertEqual((dinner["attendees"] as? [[String: Any]])?.compactMap { $0["number"] as? Int }, [1], "one attendee, once")
        let tasks = try XCTUnwrap(try pim("tasks", "list", "--json").json() as? [[String: Any]])
        XCTAssertEqual(tasks.compactMap { ($0["assignee"] as? [String: Any])?["number"] as? Int }, [1, 1])
    }

    func testAPersonMergedIntoAnOrganizationAndTheReverseReportTheFieldsOfTheOtherKind() throws {
        try ok("contacts", "add", "Acme", "--kind", "organization", "--email", "info@acme.example")
        try ok("contacts", "add", "Ann", "Lee", "--nickname", "Annie", "--org", "Acme", "--title", "CTO", "--birthday=--04-12",
               "--anniversary", "2010-06-01", "--email", "ann@acme.example", "--notes", "Founder")
        let report = try merge("1", "2")
        XCTAssertEqual(dropped(report), ["name Ann Lee", "nickname Annie", "organization Acme", "title CTO",
                                         "birthday --04-12", "anniversary 2010-06-01"])
        XCTAssertEqual(Set((report["dropped"] as? [[String: Any]] ?? []).compactMap { $0["from"] as? Int }), [2])
        let acme = try XCTUnwrap(report["contact"] as? [String: Any])
        XCTAssertEqual(acme["kind"] as? String, "organization")
        XCTAssertEqual(values(acme, "emails"), ["info@acme.example", "ann@acme.example"])
        XCTAssertEqual(acme["notes"] as? String, "Founder")
        XCTAssertTrue(acme["birthday"] is NSNull)

        // The reverse: an organization's unit is dropped by a person (a unit comes from a card).
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:globex-1\r\nFN:Globex\r\nN:;;;;\r\nORG:Globex;Sales\r\nX-ABSHOWAS:COMPANY\r\n"
            + "EMAIL:sales@globex.example\r\nEND:VCARD\r\n"
        let file = folder.appendingPathComponent("globex.vcf")
        try Data(card.utf8).write(to: file)
        XCTAssertEqual(try pim("import", file.path).status, 0)
        try ok("contacts", "add", "Bob", "Stone")
        let reverse = try merge("Bob Stone", "Globex")
        XCTAssertEqual(dropped(reverse), ["name Globex", "unit Sales"])
        let bob = try XCTUnwrap(reverse["contact"] as? [String: Any])
        XCTAssertEqual(bob["kind"] as? String, "person")
        XCTAssertEqual(values(bob, "emails"), ["sales@globex.example"])
    }

    func testPhoneNumbersEqualByTheirLastNineDigitsAreOneAndOneWrittenOtherwiseIsReported() throws {
        try ok("contacts", "add", "Ann", "Lee", "--phone", "mobile:+44 7700 900123", "--phone", "+1 555 0100")
        try ok("contacts", "add", "Ann", "Lee", "--phone", "07700 900123", "--phone", "+1 (555) 01-00", "--phone", "1234")
        let report = try merge("1", "2")
        let ann = try XCTUnwrap(report["contact"] as? [String: Any])
        XCTAssertEqual(values(ann, "phones"), ["+44 7700 900123", "+1 555 0100", "1234"])
        // Only the number written with other digits is reported; the same digits punctuated
        // otherwise say nothing more.
        XCTAssertEqual(dropped(report), ["phone 07700 900123"])
    }

    /// Failed before its fix: numbers without digits were all one number, and the second was dropped without a word.
    func testNumbersWithoutDigitsAreNotTakenForOneAnother() throws {
        // pim-contacts(1): phone numbers are "compared as duplicates compares them", and
        // duplicates never takes two numbers without digits for one; a card may have such
        // entries (TEL:ask reception).
        let cards = ["BEGIN:VCARD", "VERSION:3.0", "UID:a-1", "FN:Ann Lee", "N:Lee;Ann;;;", "TEL:ask reception", "END:VCARD",
                     "BEGIN:VCARD", "VERSION:3.0", "UID:a-2", "FN:Ann Lee", "N:Lee;Ann;;;", "TEL:see the website", "END:VCARD", ""]
        let file = folder.appendingPathComponent("cards.vcf")
        try Data(cards.joined(separator: "\r\n").utf8).write(to: file)
        XCTAssertEqual(try pim("import", file.path).status, 0)
        let report = try merge("1", "2")
        let ann = try XCTUnwrap(report["contact"] as? [String: Any])
        XCTAssertEqual(values(ann, "phones"), ["ask reception", "see the website"], "dropped without a word: \(dropped(report))")
    }

    /// Failed before its fix: a person's blank nickname or title merged into an organization was reported dropped.
    func testBlankFieldsAreNoValuesEitherWay() throws {
        // pim keeps a field typed as spaces; the merge reads it as no value ("an empty text is no
        // value"): taken over, never reported as a value kept over another.
        try ok("contacts", "add", "Ann", "Lee", "--nickname", "  ", "--notes", "  ")
        try ok("contacts", "add", "Annie", "Lee", "--nickname", "Annie", "--notes", "From the phone")
        let filled = try merge("1", "2")
        let ann = try XCTUnwrap(filled["contact"] as? [String: Any])
        XCTAssertEqual(ann["nickname"] as? String, "Annie")
        XCTAssertEqual(ann["notes"] as? String, "From the phone")
        XCTAssertEqual(dropped(filled), ["name Annie Lee"])

        try ok("contacts", "add", "Bob", "Stone", "--nickname", "Bobby")
        try ok("contacts", "add", "Robert", "Stone", "--nickname", " ", "--org", "  ", "--notes", " ")
        let kept = try merge("Bob Stone", "Robert Stone")
        XCTAssertEqual(dropped(kept), ["name Robert Stone"], "a blank is no value kept over")
        XCTAssertEqual((kept["contact"] as? [String: Any])?["nickname"] as? String, "Bobby")

        // The same blanks of a person merged into an organization are no values either.
        try ok("contacts", "add", "Acme", "--kind", "organization")
        try ok("contacts", "add", "Carol", "Jones", "--nickname", "  ", "--title", " ")
        let organization = try merge("Acme", "Carol Jones")
        XCTAssertEqual(dropped(organization), ["name Carol Jones"], "blank person fields are not dropped values")
    }

    func testNotesAreJoinedUnlessTheFirstAlreadyContainsThem() throws {
        try ok("contacts", "add", "Ann", "Lee", "--notes", "Met at the Berlin conference.\nLikes tea.")
        try ok("contacts", "add", "Ann", "Lee", "--notes", "Likes tea.")
        try ok("contacts", "add", "Ann", "Lee", "--notes", "  Allergic to nuts.\n")
        let contained = try pim("contacts", "merge", "1", "2", "--yes")
        XCTAssertEqual(contained.status, 0, contained.stderr)
        XCTAssertFalse(contained.stdout.contains("notes: joined"), contained.stdout)
        XCTAssertEqual(try shown("1")["notes"] as? String, "Met at the Berlin conference.\nLikes tea.")
        let joined = try pim("contacts", "merge", "1", "3", "--yes")
        XCTAssertTrue(joined.stdout.contains("  notes: joined\n"), joined.stdout)
        XCTAssertEqual(try shown("1")["notes"] as? String, "Met at the Berlin conference.\nLikes tea.\n\nAllergic to nuts.")
    }

    func testAContactBothAttendeeAndOrganizerAndOneMergedIntoAnAttendeeOfTheSameEvent() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example")
        try ok("contacts", "add", "Annie", "--email", "ann@home.example")
        try ok("contacts", "add", "Bob", "Stone", "--email", "bob@example.org")
        XCTAssertEqual(try pim("import", try invitation("Board", uid: "board-1", organizer: "ann@home.example",
                                                         attendees: ["ann@home.example", "ann@work.example", "bob@example.org"])).status, 0)
        let text = try pim("contacts", "merge", "1", "2", "--yes")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("  now naming it: 1 event\n"), "one event, counted once:\n\(text.stdout)")
        let board = try XCTUnwrap(try pim("events", "show", "Board", "--json").json() as? [String: Any])
        XCTAssertEqual((board["organizer"] as? [String: Any])?["number"] as? Int, 1)
        XCTAssertEqual((board["attendees"] as? [[String: Any]])?.compactMap { $0["number"] as? Int }.sorted(), [1, 3],
                       "the merged contact attends once")
        // Read again, the invitation finds the one contact and changes nothing.
        let again = try pim("import", folder.appendingPathComponent("board-1.ics").path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("0 added"), again.stdout)
        XCTAssertEqual((try pim("contacts", "list", "--json").json() as? [[String: Any]])?.count, 2)
    }

    // MARK: Output and exit statuses

    func testJSONIsTheMergedContactAsShowPrintsItTheMergedAndTheDropped() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example", "--birthday", "1990-04-01")
        try ok("contacts", "add", "Annie", "--email", "ann@home.example", "--birthday", "1990-04-02")
        let ids = try (1...2).map { try shown(String($0))["id"] as? String }
        let report = try merge("1", "Annie")
        XCTAssertEqual(Set(report.keys), ["contact", "merged", "dropped"])
        let shownNow = try shown("1")
        XCTAssertEqual(NSDictionary(dictionary: try XCTUnwrap(report["contact"] as? [String: Any])), NSDictionary(dictionary: shownNow))
        let merged = try XCTUnwrap(report["merged"] as? [[String: Any]])
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged[0]["number"] as? Int, 2)
        XCTAssertEqual(merged[0]["id"] as? String, ids[1])
        XCTAssertEqual(merged[0]["name"] as? String, "Annie")
        let drops = try XCTUnwrap(report["dropped"] as? [[String: Any]])
        XCTAssertEqual(drops.map { $0["field"] as? String }, ["name", "birthday"])
        XCTAssertEqual(drops.map { $0["value"] as? String }, ["Annie", "1990-04-02"])
        XCTAssertEqual(drops.map { $0["from"] as? Int }, [2, 2])
    }

    func testExitStatusesAndNothingChangedWhenRefused() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example")
        try ok("contacts", "add", "Annie", "--email", "ann@home.example")
        try ok("contacts", "add", "Bo")
        try ok("contacts", "add", "Bo")
        let before = try snapshot()
        let one = try pim("contacts", "merge", "1", "--yes")
        XCTAssertEqual(one.status, 2, one.stderr)
        let twice = try pim("contacts", "merge", "1", "ann lee", "--yes")
        XCTAssertEqual(twice.status, 2, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("a second time"), twice.stderr)
        let uuidPrefix = String(try XCTUnwrap(try shown("2")["id"] as? String).prefix(8))
        XCTAssertEqual(try pim("contacts", "merge", "2", uuidPrefix, "--yes").status, 2)
        XCTAssertEqual(try pim("contacts", "merge", "1", "99", "--yes").status, 3)
        XCTAssertEqual(try pim("contacts", "merge", "99", "1", "--yes").status, 3)
        XCTAssertEqual(try pim("contacts", "merge", "1", "Bo", "--yes").status, 4)
        let unconfirmed = try pim("contacts", "merge", "1", "2")
        XCTAssertEqual(unconfirmed.status, 6, unconfirmed.stderr)
        XCTAssertEqual(unconfirmed.stdout, "")
        let unconfirmedJSON = try pim("contacts", "merge", "1", "2", "--json")
        XCTAssertEqual(unconfirmedJSON.status, 6, unconfirmedJSON.stderr)
        XCTAssertEqual(unconfirmedJSON.stdout, "")
        XCTAssertEqual(try snapshot(), before, "nothing changed")
        let undo = try pim("undo")
        XCTAssertEqual(undo.status, 0)
        XCTAssertTrue(undo.stdout.contains("contacts add Bo"), "the last change is still the last add: \(undo.stdout)")
    }

    // MARK: Record files

    func testTheMergedContactsRecordFilesGoAndTheLinkedRecordsFilesNameTheFirst() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example")
        try ok("contacts", "add", "Annie", "--email", "ann@home.example")
        try ok("tasks", "add", "Slides", "--assignee", "2")
        try ok("events", "add", "Review", "--start", "fri 10:00", "--attendee", "2")
        let records = try storeRecords()
        let ann = records.appendingPathComponent("Person/p1.pimcontact")
        let annie = records.appendingPathComponent("Person/p2.pimcontact")
        XCTAssertTrue(exists(annie))
        _ = try merge("1", "2")
        XCTAssertFalse(exists(annie), "the merged contact's file is removed")
        XCTAssertTrue(try text(ann).contains("ann@home.example"), "the first's file has what it gained")
        XCTAssertTrue(try text(records.appendingPathComponent("Task/p1.pimtask")).contains("<meta name=\"assignee\" content=\"Ann Lee\"/>"))
        XCTAssertTrue(try text(records.appendingPathComponent("Event/p1.pimevent")).contains("<meta name=\"attendee\" content=\"Ann Lee\"/>"))
        XCTAssertEqual(try pim("records", "sync").stdout, "Wrote 0, removed 0, 3 up to date\n", "nothing stale")
        XCTAssertEqual(try pim("undo").status, 0)
        let people = try FileManager.default.contentsOfDirectory(atPath: records.appendingPathComponent("Person").path)
        XCTAssertEqual(people.count, 2, "undo brings the merged contact's file back")
        XCTAssertTrue(try text(records.appendingPathComponent("Task/p1.pimtask")).contains("<meta name=\"assignee\" content=\"Annie\"/>"))
        XCTAssertFalse(try text(ann).contains("ann@home.example"))
    }

    // MARK: Duplicates

    func testDuplicatesAreSetsLinkedThroughOthersInNumberOrderAndNoneExitsOne() throws {
        let none = try pim("contacts", "duplicates")
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.stdout, "")
        try ok("contacts", "add", "Carol", "Jones", "--phone", "+44 20 7946 0958")      // 1
        try ok("contacts", "add", "Zoë", "Quinn")                                       // 2
        try ok("contacts", "add", "Dan", "Brown")                                       // 3: alone
        try ok("contacts", "add", "QUINN, zoe", "--email", "zq@example.org")            // 4: name of 2
        try ok("contacts", "add", "C. Jones", "--phone", "020 7946 0958")               // 5: phone of 1
        try ok("contacts", "add", "Zed", "--email", "ZQ@EXAMPLE.ORG", "--phone", "123") // 6: e-mail of 4
        try ok("contacts", "add", "Eve", "--phone", "123")                              // 7: too short to match
        let run = try pim("contacts", "duplicates")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            #  NAME         EMAIL
            1  Carol Jones
            5  C. Jones
            shared: phone +44 20 7946 0958
            merge:  pim contacts merge 1 5

            #  NAME        EMAIL
            2  Zoë Quinn
            4  QUINN, zoe  zq@example.org
            6  Zed         ZQ@EXAMPLE.ORG
            shared: name Zoë Quinn; e-mail zq@example.org
            merge:  pim contacts merge 2 4 6

            """)
        let json = try XCTUnwrap(try pim("contacts", "duplicates", "--json").json() as? [[String: Any]])
        XCTAssertEqual(json.map { ($0["contacts"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int } }, [[1, 5], [2, 4, 6]])
        XCTAssertEqual(json.map { ($0["shared"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String } }, [["phone"], ["name", "email"]])
        XCTAssertEqual((json[1]["contacts"] as? [[String: Any]])?.first?["id"] as? String, try shown("2")["id"] as? String)
        // Merging a set as printed leaves no duplicates.
        _ = try merge("1", "5")
        _ = try merge("2", "4", "6")
        XCTAssertEqual(try pim("contacts", "duplicates").status, 1)
    }

    func testDuplicateNamesIgnoreCaseAccentsPunctuationAndWordOrderAtAnyLength() throws {
        let long = (1...400).map { "Word\($0)" }.joined(separator: " ")
        try ok("contacts", "add", long)
        try ok("contacts", "add", "Jean-Luc Picard")
        try ok("contacts", "add", "PICARD, Jean Luc")
        try ok("contacts", "add", "José Ñúñez")
        try ok("contacts", "add", "Jose Nunez")
        try ok(arguments: ["contacts", "add"] + [long.uppercased() + "."])
        try ok("contacts", "add", "!!!")
        try ok("contacts", "add", "???")
        let json = try XCTUnwrap(try pim("contacts", "duplicates", "--json").json() as? [[String: Any]])
        XCTAssertEqual(json.map { ($0["contacts"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int } },
                       [[1, 6], [2, 3], [4, 5]], "a name of punctuation only is no name")
        let text = try pim("contacts", "duplicates")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\n1  \(long)  \n") || text.stdout.contains("\n1  \(long)\n"), "the long name is printed whole")
    }

    /// Failed before its fix: O'Brien and OBrien were two names.
    func testDuplicateNamesIgnorePunctuationInsideAWord() throws {
        // pim-contacts(1): names are compared "ignoring case, accents, punctuation and word order".
        try ok("contacts", "add", "Miles O'Brien")
        try ok("contacts", "add", "Miles OBrien")
        let run = try pim("contacts", "duplicates", "--json")
        XCTAssertEqual(run.status, 0, "O'Brien is OBrien without its punctuation: \(run.stderr)")
        let json = try run.json() as? [[String: Any]]
        XCTAssertEqual(json?.map { ($0["contacts"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int } }, [[1, 2]])
    }

    private func ok(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try pim(arguments: arguments)
        XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)", file: file, line: line)
    }

    // MARK: Import bindings

    private func phoneCard() throws -> URL {
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:phone-ann-1\r\nFN:Ann Lee\r\nN:Lee;Ann;;;\r\nEMAIL;TYPE=home:ann@home.example\r\n"
            + "TEL;TYPE=CELL:+49 170 1234567\r\nNOTE:From the phone\r\nEND:VCARD\r\n"
        let file = folder.appendingPathComponent("ann.vcf")
        try Data(card.utf8).write(to: file)
        return file
    }

    /// Changed after the review: the first version took an import's binding, and importing the
    /// file again then replaced the merged contact's own values with the card's
    /// (``testImportingTheSameUnchangedFileAgainKeepsWhatTheMergedContactHadOfItsOwn``). An
    /// imported contact merged away now comes back with its file, as a deleted one does.
    func testAnImportedContactMergedIntoALocalOneComesBackWithItsFileAsADeletedOneDoes() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example", "--phone", "+44 7700 900123")
        let file = try phoneCard()
        XCTAssertEqual(try pim("import", file.path).status, 0)
        let text = try pim("contacts", "merge", "1", "2", "--yes")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertFalse(text.stdout.contains("bound to"), text.stdout)
        let again = try pim("import", file.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("1 added"), again.stdout)
        let contacts = try XCTUnwrap(try pim("contacts", "list", "--json").json() as? [[String: Any]])
        XCTAssertEqual(contacts.count, 2, "the card is a contact of its own again")
        let export = try pim("contacts", "export", "1").stdout
        XCTAssertFalse(export.contains("UID:phone-ann-1\r\n"), "the merged contact keeps its own UID:\n\(export)")
        XCTAssertEqual(try pim("contacts", "duplicates").status, 0, "and duplicates finds the two again")
    }

    func testUndoOfAMergeOfAnImportedContactGivesItsBindingBack() throws {
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example")
        let file = try phoneCard()
        XCTAssertEqual(try pim("import", file.path).status, 0)
        let exported = try pim("contacts", "export").stdout
        _ = try merge("1", "2")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try pim("contacts", "export").stdout, exported, "both cards as before, each with its UID")
        let again = try pim("import", file.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 1 unchanged"), again.stdout)
        XCTAssertEqual((try pim("contacts", "list", "--json").json() as? [[String: Any]])?.count, 2)
    }

    /// Failed before its fix: the merged contact took the import's binding, and importing the file again replaced its own e-mail address, phone number and notes with the card's.
    func testImportingTheSameUnchangedFileAgainKeepsWhatTheMergedContactHadOfItsOwn() throws {
        // The merge keeps the first contact's own values and adds the other's; the file it took
        // the binding of has not changed since. Reading it again must not undo the merge.
        try ok("contacts", "add", "Ann", "Lee", "--email", "ann@work.example", "--phone", "+44 7700 900123", "--notes", "Typed here")
        let file = try phoneCard()
        XCTAssertEqual(try pim("import", file.path).status, 0)
        _ = try merge("1", "2")
        let merged = try shown("1")
        XCTAssertEqual(values(merged, "emails"), ["ann@work.example", "ann@home.example"])
        XCTAssertEqual(values(merged, "phones"), ["+44 7700 900123", "+49 170 1234567"])
        XCTAssertEqual(try pim("import", file.path).status, 0)
        let after = try shown("1")
        XCTAssertEqual(values(after, "emails"), ["ann@work.example", "ann@home.example"], "the contact's own e-mail address is kept")
        XCTAssertEqual(values(after, "phones"), ["+44 7700 900123", "+49 170 1234567"], "its own phone number is kept")
        XCTAssertEqual(after["notes"] as? String, "Typed here\n\nFrom the phone")
        XCTAssertEqual((try pim("contacts", "list", "--json").json() as? [[String: Any]])?.count, 2, "the card is a contact again")
    }
}

/// The merge's bindings to CardDAV cards, with a real Radicale server and a second device.
final class ContactMergeReviewTestsWithSync: SyncTestCase {
    private func synced(on storeURL: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let done = try syncRun(on: storeURL, [])
        XCTAssertEqual(done.run.status, 0, done.run.stderr, file: file, line: line)
        return done.reports[contactsURL] ?? [:]
    }

    private func names(on storeURL: URL? = nil) throws -> [String] {
        try list("contacts", on: storeURL).compactMap { $0["name"] as? String }
    }

    private func emails(on storeURL: URL? = nil) throws -> [[String]] {
        try list("contacts", on: storeURL).map { contact in
            (contact["emails"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
        }
    }

    private let phoneCard = [
        "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 18.0//EN", "UID:phone-ann-1", "FN:Ann Lee", "N:Lee;Ann;;;",
        "EMAIL;TYPE=INTERNET;TYPE=HOME:ann@home.example", "TEL;TYPE=CELL:+49 170 1234567",
        "X-SOCIALPROFILE;TYPE=mastodon:https://social.example/@ann", "END:VCARD", "",
    ].joined(separator: "\r\n")

    func testTwoSyncedContactsMergedDeleteTheOthersCardAndUpdateTheFirstsOnEveryDevice() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ann", "Lee", "--email", "ann@work.example").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Annie", "--email", "ann@home.example", "--phone", "+49 170 1234567").status, 0)
        XCTAssertEqual(count(try synced(), "sent"), 2)
        try addCollections(on: other)
        XCTAssertEqual(count(try synced(on: other), "added"), 2)
        let hrefs = try server.resources(in: "/alice/contacts/")
        XCTAssertEqual(hrefs.count, 2)
        let first = try XCTUnwrap(hrefs.first { (try? server.text(of: $0).contains("FN:Ann Lee\r\n")) == true })

        let merge = try run("contacts", "merge", "Ann Lee", "Annie", "--yes")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertFalse(merge.stdout.contains("bound to"), "the first was bound already:\n\(merge.stdout)")
        let report = try synced()
        XCTAssertEqual(count(report, "removed"), 1, "\(report)")
        XCTAssertEqual(count(report, "sent"), 1, "\(report)")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/"), [first], "the other's card is deleted")
        let card = try server.text(of: first)
        XCTAssertTrue(card.contains("ann@home.example"), card)
        XCTAssertTrue(card.contains("+49 170 1234567"), card)

        let there = try synced(on: other)
        XCTAssertEqual(count(there, "deleted"), 1, "\(there)")
        XCTAssertEqual(count(there, "updated"), 1, "\(there)")
        XCTAssertEqual(try names(on: other), ["Ann Lee"])
        XCTAssertEqual(try emails(on: other), [["ann@work.example", "ann@home.example"]])
        XCTAssertEqual(count(try synced(), "sent") + count(try synced(on: other), "sent"), 0, "both devices in step")
    }

    func testALocalContactMergedWithASyncedOneTakesOverItsCardKeepingWhatThePhoneWrote() throws {
        try addCollections()
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/phone-ann.vcf", headers: ["Content-Type": "text/vcard"], body: phoneCard).status, 201)
        XCTAssertEqual(count(try synced(), "added"), 1)
        try addCollections(on: other)
        XCTAssertEqual(count(try synced(on: other), "added"), 1)

        // Typed here after the sync: never synced.
        XCTAssertEqual(try run("contacts", "add", "Ann", "Lee", "--email", "ann@work.example", "--nickname", "Annie").status, 0)
        let local = try XCTUnwrap(try list("contacts").first { $0["source"] is NSNull })
        XCTAssertEqual(local["number"] as? Int, 2)
        let merge = try run("contacts", "merge", "2", "1", "--yes")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("  bound to: \(contactsURL)\n"), merge.stdout)

        let report = try synced()
        XCTAssertEqual(count(report, "sent"), 1, "\(report)")
        XCTAssertEqual(count(report, "removed"), 0, "\(report)")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/"), ["/alice/contacts/phone-ann.vcf"], "the same card, no new one")
        let card = try server.text(of: "/alice/contacts/phone-ann.vcf")
        XCTAssertTrue(card.contains("UID:phone-ann-1\r\n"), card)
        XCTAssertTrue(card.contains("X-SOCIALPROFILE;TYPE=mastodon:https://social.example/@ann\r\n"), "the phone's property is kept:\n\(card)")
        XCTAssertTrue(card.contains("ann@work.example"), card)
        XCTAssertTrue(card.contains("ann@home.example"), card)
        XCTAssertTrue(card.contains("NICKNAME:Annie\r\n"), card)

        let there = try synced(on: other)
        XCTAssertEqual(count(there, "updated"), 1, "\(there)")
        XCTAssertEqual(try names(on: other), ["Ann Lee"])
        XCTAssertEqual(try emails(on: other), [["ann@work.example", "ann@home.example"]])
        XCTAssertEqual(try names(), ["Ann Lee"])
        XCTAssertEqual(count(try synced(), "sent") + count(try synced(on: other), "sent"), 0, "both devices in step")
    }

    func testALocalContactMergedIntoASyncedOneUpdatesItsCardAndMakesNoNewOne() throws {
        try addCollections()
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/phone-ann.vcf", headers: ["Content-Type": "text/vcard"], body: phoneCard).status, 201)
        XCTAssertEqual(count(try synced(), "added"), 1)
        XCTAssertEqual(try run("contacts", "add", "Ann", "Lee", "--email", "ann@work.example").status, 0)
        let merge = try run("contacts", "merge", "1", "2", "--yes")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertFalse(merge.stdout.contains("bound to"), merge.stdout)
        let report = try synced()
        XCTAssertEqual(count(report, "sent"), 1, "\(report)")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/"), ["/alice/contacts/phone-ann.vcf"])
        let card = try server.text(of: "/alice/contacts/phone-ann.vcf")
        XCTAssertTrue(card.contains("ann@work.example"), card)
        XCTAssertTrue(card.contains("X-SOCIALPROFILE"), card)
    }

    /// Failed before its fix: the server's event named the person twice, by the address it had and by the merged contact's first address (ResourceMerger now matches a contact's other addresses).
    func testASyncedEventTheMergedContactAttendedNamesThePersonOnceOnTheServer() throws {
        try addCollections()
        XCTAssertEqual(try run("contacts", "add", "Ann", "Lee", "--email", "ann@work.example").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Annie", "--email", "ann@home.example").status, 0)
        XCTAssertEqual(try run("contacts", "add", "Bob", "Stone", "--email", "bob@example.org").status, 0)
        XCTAssertEqual(try run("events", "add", "Review", "--start", "2026-12-03 10:00", "--calendar", "personal",
                               "--attendee", "Annie", "--attendee", "Bob").status, 0)
        XCTAssertEqual(try syncRun(on: nil, []).run.status, 0)
        let href = try XCTUnwrap(try server.resources(in: "/alice/calendar/").first)
        XCTAssertTrue(try server.text(of: href).contains("mailto:ann@home.example"))

        XCTAssertEqual(try run("contacts", "merge", "Ann Lee", "Annie", "--yes").status, 0)
        let done = try syncRun(on: nil, [])
        XCTAssertEqual(done.run.status, 0, done.run.stderr)
        let event = try server.text(of: href)
        let attendees = event.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { $0.hasPrefix("ATTENDEE") }
        XCTAssertEqual(attendees.count, 2, "Ann once and Bob, as pim's event has them:\n\(event)")
        XCTAssertTrue(event.contains("mailto:bob@example.org"), event)
    }

    func testUndoingAMergeThatTookACardBeforeSyncingLeavesBothContactsAsTheyWere() throws {
        try addCollections()
        XCTAssertEqual(try server.request("PUT", "/alice/contacts/phone-ann.vcf", headers: ["Content-Type": "text/vcard"], body: phoneCard).status, 201)
        XCTAssertEqual(count(try synced(), "added"), 1)
        XCTAssertEqual(try run("contacts", "add", "Ann", "Lee", "--email", "ann@work.example").status, 0)
        XCTAssertEqual(try run("contacts", "merge", "2", "1", "--yes").status, 0)
        XCTAssertEqual(try run("undo").status, 0)
        let report = try synced()
        XCTAssertEqual(count(report, "sent"), 1, "only the local contact, as a new card: \(report)")
        XCTAssertEqual(count(report, "removed"), 0, "\(report)")
        XCTAssertEqual(try server.resources(in: "/alice/contacts/").count, 2)
        let card = try server.text(of: "/alice/contacts/phone-ann.vcf")
        XCTAssertTrue(card.contains("X-SOCIALPROFILE"), card)
        XCTAssertFalse(card.contains("ann@work.example"), "the phone's card is untouched:\n\(card)")
        XCTAssertEqual(try names(), ["Ann Lee", "Ann Lee"])
    }
}
