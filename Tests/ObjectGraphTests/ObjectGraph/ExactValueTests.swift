// ExactValue's shortcuts past Swift's dynamic casts: unboxing a value of exactly the wanted type
// answers what `as?` answers, and the in-place read of a slot's dynamic type relies on the
// existential layout (three words of buffer, then the type's metadata; nil a zero word), which
// these tests check on the platform they run on.
import Foundation
import XCTest
@testable import ObjectGraph

final class ExactValueTests: XCTestCase {
    private struct Large: Hashable { var a = 1, b = 2, c = 3, d = 4 }  // boxed out of line in an Any
    private class Base {}
    private final class Derived: Base {}

    func testDynamicTypeIsReadInPlaceForInlineBoxedAndNilValues() {
        let values: [Any?] = ["text", Int32(7), Date(timeIntervalSinceReferenceDate: 1), Large(), nil, Derived(),
                              Optional<String>.none as Any, UUID()]
        values.withUnsafeBufferPointer { slots in
            for index in slots.indices {
                let expected: Any.Type? = values[index].map { type(of: $0) }
                let read = ExactValue.dynamicType(at: slots.baseAddress! + index)
                XCTAssertTrue(read == expected, "slot \(index): \(String(describing: read)) is not \(String(describing: expected))")
            }
        }
    }

    func testUnboxingAnswersWhatACastAnswers() {
        XCTAssertEqual(ExactValue.unbox("text" as Any, as: String.self), "text")
        XCTAssertEqual(ExactValue.unbox(Large() as Any, as: Large.self), Large())
        XCTAssertNil(ExactValue.unbox(Int32(7) as Any, as: Int.self))
        // Not exactly the type: unboxing declines, the cast decides.
        let derived: Any = Derived()
        XCTAssertNil(ExactValue.unbox(derived, as: Base.self))
        XCTAssertNotNil(ExactValue.cast(derived, as: Base.self))
        XCTAssertEqual(ExactValue.cast("text" as any Hashable & Sendable, as: String.self), "text")
        XCTAssertNil(ExactValue.cast(Int16(3) as any Hashable & Sendable, as: Int64.self))
    }

    /// Reads `row[index]` in place as a `Value`.
    private func stored<Value>(_ row: [SnapshotValue], _ index: Int, as _: Value.Type) -> Value? {
        row.withUnsafeBufferPointer { ExactValue.storedValue(at: $0.baseAddress! + index, as: Value.self) }
    }

    func testRowValuesAreReadInPlaceOnlyWhenOfExactlyTheWantedType() {
        let date = Date(timeIntervalSinceReferenceDate: 12_345)
        let id = ObjectID.temporary(for: ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }.entities[0])
        let long = String(repeating: "long text, stored out of line, ", count: 4)
        let row: [SnapshotValue] = [.value("short"), .value(long), .value(date), .value(Int64(-9)), .value(Int32(7)),
                                    .value(Int16(3)), .value(2.5), .value(Float(1.5)), .value(true), .null,
                                    .object(id), .objects([id]), .unloaded, .value(Large()), .value(UUID())]
        XCTAssertNotNil(ExactValue.valueCaseTag, "the in-place read is on where this layout holds")
        XCTAssertEqual(stored(row, 0, as: String.self), "short")
        XCTAssertEqual(stored(row, 1, as: String.self), long)
        XCTAssertEqual(stored(row, 2, as: Date.self), date)
        XCTAssertEqual(stored(row, 3, as: Int64.self), -9)
        XCTAssertEqual(stored(row, 4, as: Int32.self), 7)
        XCTAssertEqual(stored(row, 5, as: Int16.self), 3)
        XCTAssertEqual(stored(row, 6, as: Double.self), 2.5)
        XCTAssertEqual(stored(row, 7, as: Float.self), 1.5)
        XCTAssertEqual(stored(row, 8, as: Bool.self), true)
        XCTAssertNil(stored(row, 9, as: String.self), "no value: the general path answers it")
        // Other types and cases take the general path.
        XCTAssertNil(stored(row, 4, as: Int64.self), "an Int32 is not read as an Int64")
        XCTAssertNil(stored(row, 0, as: Int32.self))
        for index in 10...14 { XCTAssertNil(stored(row, index, as: String.self), "slot \(index)") }
        XCTAssertNil(stored(row, 14, as: UUID.self), "types not known to fit the inline buffer are not read in place")
        // The dynamic type of any `.value`, inline or boxed, is read in place too.
        row.withUnsafeBufferPointer { row in
            for index in row.indices {
                let expected: Any.Type? = if case .value(let value) = row[index] { type(of: value) } else { nil }
                XCTAssertTrue(ExactValue.storedType(at: row.baseAddress! + index) == expected, "slot \(index)")
            }
        }
    }

    func testRowValuesEncodedInPlaceAreWhatTheGeneralEncodingGives() throws {
        let model = ManagedObjectModel {
            Entity("Sample") {
                Attribute("text", .string)
                Attribute("short", .integer16)
                Attribute("medium", .integer32)
                Attribute("long", .integer64)
                Attribute("flag", .boolean)
                Attribute("real", .double)
                Attribute("single", .float)
                Attribute("when", .date)
                Attribute("amount", .decimal)
            }
        }
        let entity = model.entitiesByName["Sample"]!
        let samples: [(String, any Hashable & Sendable)] = [
            ("text", "héllo"), ("text", String(repeating: "long ", count: 20)), ("short", Int16(-3)), ("medium", Int32(70_000)),
            ("long", Int64.max), ("flag", true), ("flag", false), ("real", -0.25), ("single", Float(1.5)),
            ("when", Date(timeIntervalSinceReferenceDate: 1_234.5)), ("amount", Decimal(string: "1.25")!)]
        for (name, value) in samples {
            let attribute = try XCTUnwrap(entity.attributesByName[name])
            let row: [SnapshotValue] = [.value(value)]
            let inPlace = row.withUnsafeBufferPointer { SQLiteValueCoding.encodeInPlace($0.baseAddress!, as: attribute.attributeType) }
            if attribute.attributeType == .decimal {
                XCTAssertNil(inPlace, "decimals take the general path")
            } else {
                XCTAssertEqual(inPlace, try SQLiteValueCoding.encode(value, of: attribute), name)
            }
        }
        // A value of another Swift type than the attribute's takes the general path.
        let row: [SnapshotValue] = [.value(Int64(7)), .null]
        XCTAssertNil(row.withUnsafeBufferPointer { SQLiteValueCoding.encodeInPlace($0.baseAddress!, as: .integer32) })
        XCTAssertNil(row.withUnsafeBufferPointer { SQLiteValueCoding.encodeInPlace($0.baseAddress! + 1, as: .string) })
    }
}
