// pim's JSON writer against Foundation's JSONSerialization with the options pim used
// (.prettyPrinted, .sortedKeys, .withoutEscapingSlashes): the same bytes for the same values.
import Foundation
import XCTest
@testable import PIM

final class JSONTextTests: XCTestCase {
    private func foundation(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]),
               as: UTF8.self)
    }

    /// A random JSON value of at most `depth` levels, from a fixed generator.
    private func value(_ random: inout SplitMix, depth: Int) -> Any {
        let keys = ["id", "ID", "number", "title", "Title", "allDay", "dependsOn", "due", "end", "externalID", "x2", "x10",
                    "x02", "a-b", "a_b", "a.b", "2026-11-26", "2026-11-3", "é", "Zoe", "zoe", "日本"]
        let strings = ["", "plain", "quote \" and \\ backslash", "slash / here", "tab\tnew\nline\r", "\u{1}\u{1F}\u{8}\u{C}",
                       "Café", "Jose\u{301}", "😀 👨‍👩‍👧", "王小明", "\u{7F}\u{80}"]
        switch random.next() % (depth > 0 ? 9 : 6) {
        case 0: return NSNull()
        case 1: return strings[Int(random.next() % UInt64(strings.count))]
        case 2: return Int64(bitPattern: random.next()) >> (random.next() % 64)
        case 3: return ((Double(Int64(bitPattern: random.next()) % 100_000)) / 7 * 100).rounded() / 100
        case 4: return Double(bitPattern: random.next() >> 2 | 0x3000_0000_0000_0000)
        case 5: return random.next() % 2 == 0
        case 6: return (0..<Int(random.next() % 4)).map { _ in value(&random, depth: depth - 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 6) { object[keys[Int(random.next() % UInt64(keys.count))]] = value(&random, depth: depth - 1) }
            return object
        }
    }

    func testWritesWhatJSONSerializationWrites() throws {
        var random = SplitMix(seed: 7)
        for round in 0..<400 {
            let sample = value(&random, depth: 3)
            let wrapped: Any = sample is [Any] || sample is [String: Any] ? sample : [sample]
            XCTAssertEqual(JSONText.write(wrapped), try foundation(wrapped), "round \(round)")
        }
    }

    func testEmptyContainersAndNumbers() throws {
        for sample: Any in [[Any](), [String: Any](), [1.0, 0.5, -0.25, 1e21, 1e-7, 123456789.0] as [Any], ["b": [String: Any](), "a": [Any]()]] {
            XCTAssertEqual(JSONText.write(sample), try foundation(sample))
        }
        XCTAssertNil(JSONText.write([Double.nan]))
    }
}

/// A small deterministic generator (SplitMix64), so that failures repeat.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
