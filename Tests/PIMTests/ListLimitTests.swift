// `--limit` with a sort the store can do as pim does (dates, numbers, through a to-one link) is
// left to the store, which stops after the limit: the records are the first ones of the whole
// sorted list, nil values and ties included. Sorts of pim's own (urgency, priority by importance,
// folded text) still sort everything first.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class ListLimitTests: PIMStoreTestCase {
    private func titles(_ records: [ManagedObject]) -> [String] {
        records.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    func testALimitedListIsTheStartOfTheWholeList() throws {
        try run("contacts") { store in
            for (name, birthday) in [("Ann", "1990-05-01"), ("Bob", nil), ("Cy", "1985-01-01")] as [(String, String?)] {
                var draft = ContactDraft(name: name)
                draft.birthday = birthday
                _ = try store.addContact(draft)
            }
        }
        try run("events") { store in
            _ = try store.addEvent(EventDraft(title: "Early", start: "2026-11-20T09:00"))
            _ = try store.addEvent(EventDraft(title: "Late", start: "2026-12-20T09:00"))
        }
        try run("tasks") { store in
            let dues: [String?] = ["2026-12-01", nil, "2026-12-01", "2026-11-30", nil, "2027-01-05", "2026-12-01", "2026-11-30"]
            for (index, due) in dues.enumerated() {
                var draft = TaskDraft(title: "t\(index)")
                draft.due = due
                draft.priority = ["H", "L", nil, "M"][index % 4]
                draft.assignee = ["Ann", "Bob", "Cy", nil][index % 4]
                draft.event = ["Late", nil, "Early"][index % 3]
                _ = try store.addTask(draft)
            }
        }
        let store = try open()
        let sorts: [[String]] = [["due"], ["-due"], ["due", "-created"], ["assignee.birthday", "due"], ["-event.start", "due"], ["event.start"], ["-number"],
                                 ["priority"], ["-urgency"], ["title"], []]
        for sort in sorts {
            var whole = RecordQuery(kind: .task)
            whole.sort = sort
            let all = titles(try store.list(whole))
            XCTAssertEqual(all.count, 8)
            for limit in [0, 1, 3, 8, 20] {
                var limited = whole
                limited.limit = limit
                XCTAssertEqual(titles(try store.list(limited)), Array(all.prefix(limit)), "--sort \(sort.joined(separator: ",")) --limit \(limit)")
            }
        }
        XCTAssertNotNil(store.storeOrder(["due", "-event.start"], kind: .task))
        XCTAssertNil(store.storeOrder(["assignee.birthday"], kind: .task), "a contact may be a person or an organization")
        XCTAssertNil(store.storeOrder(["title"], kind: .task), "text is folded by pim")
        XCTAssertNil(store.storeOrder(["priority"], kind: .task), "priority sorts by importance")
        XCTAssertNil(store.storeOrder(["-urgency"], kind: .task))
        XCTAssertNil(store.storeOrder(["assignee.name"], kind: .task))
    }
}
