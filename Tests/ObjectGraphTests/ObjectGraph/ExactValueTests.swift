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
}
