// One occurrence of a repeating event changed on its own (pim-events(1) `edit --occurrence`,
// RFC 5545's RECURRENCE-ID), end to end on the built binary (PimRun.swift's helper: Wednesday
// 2026-11-25 10:30 in Berlin).
import Foundation
import XCTest

final class EventsOccurrenceEditTests: PimTestCase {
    /// The events of `events list --json` from `from` to `to`, by number (none: exit 1).
    private func events(from: String, to: String) throws -> [[String: Any]] {
        let run = try pim("events", "list", "--from", from, "--to", to, "--json")
        if run.status == 1 { return [] }
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [[String: Any]]).sorted { ($0["number"] as? Int ?? 0) < ($1["number"] as? Int ?? 0) }
    }

    /// Moving one standup: the occurrence becomes an event of its own at the new time, linked to
    /// the repeating event by the start it replaces, which the repeating event now skips; the
    /// other days are untouched. Editing the same occurrence again edits that event, and the
    /// repeating event is still found by its title, which they share.
    func testChangingOneOccurrenceMakesAnEventOfItsOwnThatTheSeriesSkips() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2026-11-30 09:15", "--duration", "15m",
                               "--repeat", "weekdays", "--location", "Room 1").status, 0)
        let moved = try pim("events", "edit", "standup", "--occurrence", "2026-12-02", "--start", "2026-12-02 11:00", "--location", "Room 2")
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue(moved.stdout.contains("Edited event 2") && moved.stdout.contains("the occurrence of event 1 on Wed 2026-12-02 09:15, now an event of its own"),
                      moved.stdout)
        let day = try events(from: "2026-12-02", to: "2026-12-03")
        XCTAssertEqual(day.map { $0["number"] as? Int }, [2], "that day, only the changed occurrence: \(day)")
        let changed = day[0]
        XCTAssertTrue((changed["start"] as? String)?.hasPrefix("2026-12-02T11:00:00") == true, "\(changed)")
        XCTAssertTrue((changed["end"] as? String)?.hasPrefix("2026-12-02T11:15:00") == true, "the series' length: \(changed)")
        XCTAssertEqual(changed["location"] as? String, "Room 2")
        XCTAssertTrue((changed["replaces"] as? String)?.hasPrefix("2026-12-02T09:15:00") == true, "\(changed)")
        XCTAssertEqual((changed["series"] as? [String: Any])?["number"] as? Int, 1)
        XCTAssertNil(changed["repeat"] as? String)
        let series = try pim("events", "show", "1", "--json")
        XCTAssertEqual(((try series.json() as? [String: Any])?["skipped"] as? [String])?.count, 1, series.stdout)
        XCTAssertEqual(try events(from: "2026-12-03", to: "2026-12-04").map { $0["number"] as? Int }, [1], "the next day is the series'")

        let again = try pim("events", "edit", "standup", "--occurrence", "2026-12-02", "--title", "Standup (moved)")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("Edited event 2") && !again.stdout.contains("now an event of its own"), again.stdout)
        XCTAssertEqual(try events(from: "2026-12-02", to: "2026-12-03").map { $0["title"] as? String }, ["Standup (moved)"])
    }

    /// `delete --occurrence` of a changed occurrence deletes its event (the series keeps skipping
    /// it); deleting the repeating event deletes its changed occurrences, and undo brings both
    /// back, linked; `edit --skipped ''` brings back the skipped occurrences but not the changed
    /// ones, whose events stand for them.
    func testDeletingAndUnskippingKeepChangedOccurrencesConsistent() throws {
        XCTAssertEqual(try pim("events", "add", "Standup", "--start", "2026-11-30 09:15", "--duration", "15m", "--repeat", "weekdays").status, 0)
        XCTAssertEqual(try pim("events", "edit", "1", "--occurrence", "2026-12-02 09:15", "--start", "2026-12-02 11:00").status, 0)
        XCTAssertEqual(try pim("events", "delete", "1", "--occurrence", "2026-12-01", "--yes").status, 0)
        XCTAssertEqual(try pim("events", "edit", "1", "--skipped", "").status, 0)
        XCTAssertEqual(try events(from: "2026-12-01", to: "2026-12-02").map { $0["number"] as? Int }, [1], "the skipped day is back")
        XCTAssertEqual(try events(from: "2026-12-02", to: "2026-12-03").map { $0["number"] as? Int }, [2], "the changed one is not doubled")

        let deleted = try pim("events", "delete", "1", "--yes")
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(try pim("events", "list").status, 1, "no events left")
        XCTAssertEqual(try pim("undo").status, 0)
        let restored = try events(from: "2026-12-02", to: "2026-12-03")
        XCTAssertEqual(restored.map { $0["number"] as? Int }, [2])
        XCTAssertEqual((restored.first?["series"] as? [String: Any])?["number"] as? Int, 1, "undo restores the link")

        let removed = try pim("events", "delete", "standup", "--occurrence", "2026-12-02", "--yes")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(try events(from: "2026-12-02", to: "2026-12-03").count, 0, "the changed occurrence is gone, and the series still skips it")
    }

    /// An all-day series: the changed occurrence is that day, all day. Refused: --repeat and
    /// --skipped with --occurrence (exit 2), an event that does not repeat (exit 2), a day the
    /// series has no occurrence on (exit 3), and --occurrence on a changed occurrence, or a rule
    /// for one (exit 2).
    func testAllDayOccurrencesAndRefusals() throws {
        XCTAssertEqual(try pim("events", "add", "Market", "--start", "2026-12-01", "--all-day", "--repeat", "weekly").status, 0)
        XCTAssertEqual(try pim("events", "edit", "market", "--occurrence", "2026-12-08", "--title", "Christmas market").status, 0)
        let day = try events(from: "2026-12-08", to: "2026-12-09")
        XCTAssertEqual(day.map { $0["title"] as? String }, ["Christmas market"])
        XCTAssertEqual(day.first?["replaces"] as? String, "2026-12-08")
        XCTAssertEqual(day.first?["allDay"] as? Bool, true)

        XCTAssertEqual(try pim("events", "edit", "1", "--occurrence", "2026-12-15", "--repeat", "daily").status, 2)
        XCTAssertEqual(try pim("events", "add", "Dentist", "--start", "2026-12-03 08:00").status, 0)
        XCTAssertEqual(try pim("events", "edit", "dentist", "--occurrence", "2026-12-03", "--title", "x").status, 2)
        let none = try pim("events", "edit", "1", "--occurrence", "2026-12-09", "--title", "x")
        XCTAssertEqual(none.status, 3, none.stderr)
        let nested = try pim("events", "edit", "2", "--occurrence", "2026-12-08", "--title", "x")
        XCTAssertEqual(nested.status, 2, nested.stderr)
        XCTAssertTrue(nested.stderr.contains("changed occurrence of event 1"), nested.stderr)
        let repeating = try pim("events", "edit", "2", "--repeat", "daily")
        XCTAssertEqual(repeating.status, 2, repeating.stderr)
        XCTAssertTrue(repeating.stderr.contains("does not repeat on its own"), repeating.stderr)
    }
}
