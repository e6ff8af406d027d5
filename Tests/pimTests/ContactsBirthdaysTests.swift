// `pim contacts birthdays`, end to end on the built binary (now: Wednesday 2026-11-25 in Berlin):
// the coming birthdays and anniversaries soonest first, with how soon and the age or years, a
// year-less date (1604) without a count, 29 February on 28 February in other years, --days,
// JSON, and exit 1 when there are none.
import Foundation
import XCTest

final class ContactsBirthdaysTests: PimTestCase {
    private func addContacts() throws {
        for arguments in [["Ann Lee", "--birthday", "1990-11-26"], ["Dee Leap", "--birthday", "1988-02-29"],
                          ["Eve Today", "--birthday", "2000-11-25"], ["No Dates"]] {
            let run = try pim(arguments: ["contacts", "add"] + arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let cards = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bo Ray\r\nN:Ray;Bo;;;\r\nANNIVERSARY:2016-11-27\r\nBDAY:1970-01-05\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cy Young\r\nN:Young;Cy;;;\r\nBDAY:1604-12-01\r\nEND:VCARD\r\n"
        let file = folder.appendingPathComponent("cards.vcf")
        try Data(cards.utf8).write(to: file)
        let imported = try pim("import", file.path)
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    func testTheComingDatesAreListedSoonestFirstWithHowSoonAndTheYears() throws {
        try addContacts()
        let run = try pim("contacts", "birthdays")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            #  DATE            IN        NAME       WHAT
            3  Wed 2026-11-25  today     Eve Today  birthday (turns 26)
            1  Thu 2026-11-26  tomorrow  Ann Lee    birthday (turns 36)
            5  Fri 2026-11-27  2 days    Bo Ray     anniversary (10 years)
            6  Tue 2026-12-01  6 days    Cy Young   birthday
            5  Tue 2027-01-05  41 days   Bo Ray     birthday (turns 57)
            2  Sun 2027-02-28  95 days   Dee Leap   birthday (turns 39)

            """)
    }

    func testDaysLimitsTheWindowAndJSONGivesEachDate() throws {
        try addContacts()
        let run = try pim("contacts", "birthdays", "--days", "7", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let dates = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(dates.map { $0["name"] as? String }, ["Eve Today", "Ann Lee", "Bo Ray", "Cy Young"])
        XCTAssertEqual(dates.map { $0["type"] as? String }, ["birthday", "birthday", "anniversary", "birthday"])
        XCTAssertEqual(dates.map { $0["date"] as? String }, ["2026-11-25", "2026-11-26", "2026-11-27", "2026-12-01"])
        XCTAssertEqual(dates.map { $0["days"] as? Int }, [0, 1, 2, 6])
        XCTAssertEqual(dates.map { $0["contact"] as? Int }, [3, 1, 5, 6])
        XCTAssertEqual(dates[2]["years"] as? Int, 10)
        XCTAssertNil(dates[3]["years"], "a year-less birthday has no count")
    }

    func testALeapDayBirthdayFallsOnItsOwnDayInALeapYear() throws {
        try addContacts()
        // From 2028-01-10 a year ahead takes in 29 February 2028.
        let run = try pim("contacts", "birthdays", "--json", environment: ["PIM_NOW": "2028-01-10T10:00:00"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let dates = try XCTUnwrap(run.json() as? [[String: Any]])
        let leap = try XCTUnwrap(dates.first { $0["name"] as? String == "Dee Leap" })
        XCTAssertEqual(leap["date"] as? String, "2028-02-29")
        XCTAssertEqual(leap["years"] as? Int, 40)
    }

    func testNoDatesExitsOneAndABadCountTwo() throws {
        XCTAssertEqual(try pim("contacts", "add", "No Dates").status, 0)
        let none = try pim("contacts", "birthdays")
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.stdout, "")
        XCTAssertTrue(none.stderr.contains("no birthdays or anniversaries in the next year"), none.stderr)
        let bad = try pim("contacts", "birthdays", "--days", "0")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--days must be at least 1"), bad.stderr)
    }
}
