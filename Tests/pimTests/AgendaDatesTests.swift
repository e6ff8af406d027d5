// Contacts' birthdays and anniversaries in `pim events agenda`, end to end on the built binary:
// first on their days with the age or the years, a year-less date (Apple's 1604) without a
// count, 29 February on 28 February in other years, in JSON, and left out with --no-dates.
import Foundation
import XCTest

final class AgendaDatesTests: PimTestCase {
    private func addContacts() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann Lee", "--birthday", "1990-11-26").status, 0)
        let cards = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bo Ray\r\nN:Ray;Bo;;;\r\nANNIVERSARY:2016-11-27\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cy Young\r\nN:Young;Cy;;;\r\nBDAY:1604-11-26\r\nEND:VCARD\r\n"
        let file = folder.appendingPathComponent("cards.vcf")
        try Data(cards.utf8).write(to: file)
        let imported = try pim("import", file.path)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try pim("events", "add", "Dinner", "--start", "2026-11-26 19:00", "--duration", "2h").status, 0)
    }

    func testBirthdaysAndAnniversariesComeFirstOnTheirDays() throws {
        try addContacts()
        let run = try pim("events", "agenda", "--days", "3")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            Wed 2026-11-25
              nothing
            Thu 2026-11-26
              birthday     Ann Lee (turns 36)  [1]
              birthday     Cy Young  [3]
              19:00-21:00  Dinner  [1]
            Fri 2026-11-27
              anniversary  Bo Ray (10 years)  [2]

            """)
        let days = try XCTUnwrap(try pim("events", "agenda", "--days", "3", "--json").json() as? [[String: Any]])
        let thursday = try XCTUnwrap(days[1]["items"] as? [[String: Any]])
        XCTAssertEqual(thursday.map { $0["type"] as? String }, ["birthday", "birthday", "event"])
        XCTAssertEqual(thursday.first?["name"] as? String, "Ann Lee")
        XCTAssertEqual(thursday.first?["years"] as? Int, 36)
        XCTAssertNil(thursday[1]["years"], "a year-less birthday has no count")
        XCTAssertEqual((days[2]["items"] as? [[String: Any]])?.first?["type"] as? String, "anniversary")

        let without = try pim("events", "agenda", "--days", "3", "--no-dates")
        XCTAssertEqual(without.status, 0, without.stderr)
        XCTAssertFalse(without.stdout.contains("birthday") || without.stdout.contains("anniversary"), without.stdout)
        XCTAssertTrue(without.stdout.contains("19:00-21:00  Dinner  [1]"), without.stdout)
    }

    func testABirthdayOn29FebruaryShowsOn28FebruaryInOtherYears() throws {
        XCTAssertEqual(try pim("contacts", "add", "Leap Day", "--birthday", "2000-02-29").status, 0)
        let common = try pim("events", "agenda", "--days", "3", environment: ["PIM_NOW": "2027-02-27T10:00:00"])
        XCTAssertEqual(common.status, 0, common.stderr)
        XCTAssertEqual(common.stdout, """
            Sat 2027-02-27
              nothing
            Sun 2027-02-28
              birthday     Leap Day (turns 27)  [1]
            Mon 2027-03-01
              nothing

            """)
        let leap = try pim("events", "agenda", "--days", "2", environment: ["PIM_NOW": "2028-02-28T10:00:00"])
        XCTAssertTrue(leap.stdout.contains("Tue 2028-02-29\n  birthday     Leap Day (turns 28)  [1]\n"), leap.stdout)
        XCTAssertFalse(leap.stdout.contains("Mon 2028-02-28\n  birthday"), leap.stdout)
    }
}
