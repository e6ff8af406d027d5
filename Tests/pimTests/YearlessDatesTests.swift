// Birthdays and anniversaries without a year, end to end on the built binary (now: Wednesday
// 2026-11-25 in Berlin): typed without a year, read from vCard 4.0 (`--0412`, `--04-12`), xCard
// and Google's GData (`--04-12`), and Apple's vCard 3.0 form (1604 with X-APPLE-OMIT-YEAR); kept
// as 1604, as Apple's address books keep them; shown and exported as RFC 6350 writes them; no age
// counted.
import Foundation
import XCTest

final class YearlessDatesTests: PimTestCase {
    private func contacts() throws -> [[String: Any]] {
        let run = try pim("contacts", "list", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [[String: Any]])
    }

    private func birthdays() throws -> [String: String] {
        var result: [String: String] = [:]
        for contact in try contacts() {
            result[contact["name"] as? String ?? ""] = contact["birthday"] as? String ?? "none"
        }
        return result
    }

    func testADayTypedWithoutAYearHasNone() throws {
        for (name, typed) in [("Ann", "dec 1"), ("Bo", "--02-29"), ("Cy", "4-12"), ("Di", "1 March"), ("Ed", "1990-04-12"), ("Fay", "tomorrow")] {
            let run = try pim("contacts", "add", name, "--birthday=\(typed)")
            XCTAssertEqual(run.status, 0, "\(typed): \(run.stderr)")
        }
        XCTAssertEqual(try birthdays(), ["Ann": "--12-01", "Bo": "--02-29", "Cy": "--04-12", "Di": "--03-01", "Ed": "1990-04-12",
                                         "Fay": "2026-11-26"])
        let table = try pim("contacts", "list", "--fields", "name,birthday")
        XCTAssertTrue(table.stdout.contains("Ann   --12-01\n"), table.stdout)
        // No age for a day without a year; 29 February on the 28th in 2027.
        let coming = try pim("contacts", "birthdays", "--json")
        let dates = try XCTUnwrap(coming.json() as? [[String: Any]])
        let bo = try XCTUnwrap(dates.first { $0["name"] as? String == "Bo" })
        XCTAssertEqual(bo["date"] as? String, "2027-02-28")
        XCTAssertNil(bo["years"])
        XCTAssertEqual(dates.first { $0["name"] as? String == "Ed" }?["years"] as? Int, 37)

        for bad in ["13-01", "02-30", "--00-10"] {
            let run = try pim("contacts", "add", "Bad", "--birthday=\(bad)")
            XCTAssertEqual(run.status, 2, "\(bad): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("no such day"), "\(bad): \(run.stderr)")
        }
        // Edits take the same forms; an anniversary too.
        let edited = try pim("contacts", "edit", "Ann", "--birthday=--12-02", "--anniversary", "jun 18")
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(try birthdays()["Ann"], "--12-02")
        XCTAssertEqual(try contacts().first { $0["name"] as? String == "Ann" }?["anniversary"] as? String, "--06-18")
        let added = try pim("contacts", "add", "Gus", "--birthday", "1980-01-02", "--anniversary", "2016-06-18")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("\n  anniversary Sat 2016-06-18"), added.stdout)
        let organization = try pim("contacts", "add", "Acme", "--kind", "organization", "--anniversary", "2000-01-01")
        XCTAssertEqual(organization.status, 2)
        XCTAssertTrue(organization.stderr.contains("organizations have no field \"anniversary\""), organization.stderr)
    }

    func testEveryFormatsDayWithoutAYearIsRead() throws {
        let cards = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:v4-basic\r\nFN:Linus Basic\r\nBDAY:--0412\r\nANNIVERSARY:--04-13\r\nEND:VCARD\r\n"
            + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:apple\r\nFN:Apple Style\r\nBDAY;X-APPLE-OMIT-YEAR=1604:1604-05-06\r\nEND:VCARD\r\n"
        try Data(cards.utf8).write(to: folder.appendingPathComponent("cards.vcf"))
        let xcard = """
            <?xml version="1.0" encoding="utf-8"?>
            <vcards xmlns="urn:ietf:params:xml:ns:vcard-4.0"><vcard><uid><text>x-1</text></uid><fn><text>Xena Card</text></fn>\
            <bday><date>--0707</date></bday></vcard></vcards>
            """
        try Data(xcard.utf8).write(to: folder.appendingPathComponent("cards.xml"))
        let gdata = """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:gd="http://schemas.google.com/g/2005" \
            xmlns:gContact="http://schemas.google.com/contact/2008"><entry><id>http://www.google.com/m8/feeds/contacts/a/base/1</id>\
            <title>Gina Data</title><gd:name><gd:fullName>Gina Data</gd:fullName></gd:name>\
            <gContact:birthday when="--08-09"/><gContact:event rel="anniversary"><gd:when startTime="2010-06-12"/></gContact:event>\
            <gContact:event rel="other"><gd:when startTime="2001-01-01"/></gContact:event></entry></feed>
            """
        try Data(gdata.utf8).write(to: folder.appendingPathComponent("google.xml"))
        for file in ["cards.vcf", "cards.xml", "google.xml"] {
            let run = try pim("import", folder.appendingPathComponent(file).path)
            XCTAssertEqual(run.status, 0, "\(file): \(run.stderr)")
        }
        XCTAssertEqual(try birthdays(), ["Linus Basic": "--04-12", "Apple Style": "--05-06", "Xena Card": "--07-07", "Gina Data": "--08-09"])
        let linus = try XCTUnwrap(try contacts().first { $0["name"] as? String == "Linus Basic" })
        XCTAssertEqual(linus["anniversary"] as? String, "--04-13")
        // Google's anniversary is a contact event of that kind (other kinds are not anniversaries).
        let gina = try XCTUnwrap(try contacts().first { $0["name"] as? String == "Gina Data" })
        XCTAssertEqual(gina["anniversary"] as? String, "2010-06-12")
    }

    func testExportsWriteTheDayAsEachVersionCanAndReadItBackUnchanged() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "--birthday", "dec 1").status, 0)
        let three = try pim("contacts", "export")
        XCTAssertEqual(three.status, 0, three.stderr)
        XCTAssertTrue(three.stdout.contains("BDAY;X-APPLE-OMIT-YEAR=1604:1604-12-01\r\n"), three.stdout)
        let four = try pim("contacts", "export", "--vcard-version", "4.0")
        XCTAssertEqual(four.status, 0, four.stderr)
        XCTAssertTrue(four.stdout.contains("BDAY:--1201\r\n"), four.stdout)
        for (name, text) in [("three.vcf", three.stdout), ("four.vcf", four.stdout)] {
            let file = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            let run = try pim("import", "--json", file.path)
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            let summary = try XCTUnwrap((run.json() as? [[String: Any]])?.first)
            XCTAssertEqual(summary["unchanged"] as? Int, 1, "\(name): \(summary)")
        }
        XCTAssertEqual(try birthdays(), ["Ann": "--12-01"])
    }
}
