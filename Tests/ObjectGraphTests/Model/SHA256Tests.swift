// The SHA-256 behind version hashes matches the FIPS 180-4 test vectors, at and around the
// block boundaries.
import XCTest
@testable import ObjectGraph

final class SHA256Tests: XCTestCase {
    func testEmptyInputMatchesTheStandardDigest() {
        XCTAssertEqual(SHA256.hash("").hexString, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testAbcMatchesTheStandardDigest() {
        XCTAssertEqual(SHA256.hash("abc").hexString, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testTwoBlockMessageMatchesTheStandardDigest() {
        XCTAssertEqual(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hexString,
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testIncrementalUpdatesEqualOneUpdate() {
        let text = String(repeating: "0123456789", count: 20)
        var hasher = SHA256()
        for chunk in stride(from: 0, to: text.count, by: 7) {
            let start = text.index(text.startIndex, offsetBy: chunk)
            let end = text.index(start, offsetBy: min(7, text.count - chunk))
            hasher.update(String(text[start..<end]))
        }
        XCTAssertEqual(hasher.finalize(), SHA256.hash(text))
    }
}
