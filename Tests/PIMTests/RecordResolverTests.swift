// A record named by a prefix of its UUID is looked up as a range of UUIDs on the store's index:
// the range a prefix stands for, and that every prefix finds what comparing the UUIDs' text finds,
// for saved records and records not saved yet.
import Foundation
import ObjectGraph
import XCTest
@testable import PIM

final class RecordResolverTests: PIMStoreTestCase {
    func testAPrefixStandsForTheUUIDsFromItPaddedWithZerosToTheNextPrefix() throws {
        let range = try XCTUnwrap(RecordResolver.uuidRange(ofPrefix: "1bEa-F"))
        XCTAssertEqual(range.lower.uuidString, "1BEAF000-0000-0000-0000-000000000000")
        XCTAssertEqual(range.upper?.uuidString, "1BEB0000-0000-0000-0000-000000000000")
        let top = try XCTUnwrap(RecordResolver.uuidRange(ofPrefix: "ffff"))
        XCTAssertEqual(top.lower.uuidString, "FFFF0000-0000-0000-0000-000000000000")
        XCTAssertNil(top.upper, "nothing follows ffff…")
        let whole = "0123abcd-4567-89ef-0123-456789abcdef"
        XCTAssertEqual(RecordResolver.uuidRange(ofPrefix: whole)?.lower.uuidString, whole.uppercased())
        XCTAssertEqual(RecordResolver.uuidRange(ofPrefix: whole)?.upper?.uuidString, "0123ABCD-4567-89EF-0123-456789ABCDF0")
        XCTAssertNil(RecordResolver.uuidRange(ofPrefix: "12g4"), "not hexadecimal")
        XCTAssertNil(RecordResolver.uuidRange(ofPrefix: "--"), "no digits")
        XCTAssertNil(RecordResolver.uuidRange(ofPrefix: whole + "0"), "longer than a UUID")
    }

    func testEveryPrefixFindsTheRecordsWhoseUUIDTextStartsWithIt() throws {
        try run("tasks add") { store in
            for index in 0..<40 { _ = try store.addTask(TaskDraft(title: "saved \(index)")) }
        }
        let store = try open()
        for index in 0..<5 { _ = try store.addTask(TaskDraft(title: "pending \(index)")) }
        var request = FetchRequest<ManagedObject>(entityName: RecordKind.task.entityName)
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        let tasks = try store.context.fetch(request)
        XCTAssertEqual(tasks.count, 45)
        let texts = tasks.map { ($0.value(forKey: "uuid") as! UUID).uuidString.lowercased() }
        let resolver = RecordResolver(store: store)
        var prefixes = Set<String>()
        for text in texts {
            for length in [1, 2, 3, 4, 8, 9, 13, 20, 36] { prefixes.insert(String(text.prefix(length))) }
        }
        prefixes.formUnion(["0", "7f", "ffff", "0000"])
        for prefix in prefixes {
            let digits = prefix.filter { $0 != "-" }
            let expected = zip(tasks, texts).filter { $0.1.filter { $0 != "-" }.hasPrefix(digits) }.map(\.0.objectID)
            let found = try resolver.records(.task, uuidPrefix: prefix).map(\.objectID)
            XCTAssertEqual(found, expected, "prefix \(prefix)")
            XCTAssertEqual(try resolver.records(.task, uuidPrefix: prefix.uppercased()).map(\.objectID), expected,
                           "prefix \(prefix.uppercased())")
        }
        // The whole UUID names one record, saved or not, and a prefix of no record none.
        let pending = try XCTUnwrap(tasks.last)
        XCTAssertEqual(try resolver.resolve(texts.last!, as: .task).objectID, pending.objectID)
        XCTAssertEqual(try resolver.resolve(String(texts[3].prefix(23)), as: .task).objectID, tasks[3].objectID)
    }
}
