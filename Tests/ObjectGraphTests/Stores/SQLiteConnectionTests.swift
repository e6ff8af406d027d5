// The connection under the SQLite store: typed values in and out, errors that carry the SQL and
// its values, the statement cache (nested use of one statement, its bound size), transactions
// that roll back, and a busy writer making another wait and then fail.
import Foundation
import XCTest
@testable import ObjectGraph

final class SQLiteConnectionTests: XCTestCase {
    private func connection(_ directory: TemporaryDirectory, busyTimeout: TimeInterval = 10) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: directory.url.appendingPathComponent("c.sqlite").path, busyTimeout: busyTimeout)
        try connection.executeScript("CREATE TABLE IF NOT EXISTS t (v)")
        return connection
    }

    func testEveryStorageClassRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let c = try connection(directory)
        let values: [SQLiteValue] = [.null, .integer(.min), .integer(.max), .double(-0.5), .text("naïve \u{0} end"), .blob(Data()), .blob(Data([0, 255]))]
        for value in values { try c.execute("INSERT INTO t (v) VALUES (?)", [value]) }
        XCTAssertEqual(try c.rows("SELECT v FROM t ORDER BY rowid").map { $0[0] }, values)
    }

    func testErrorsCarryTheStatementTheValuesAndSQLitesMessage() throws {
        let directory = try TemporaryDirectory()
        let c = try connection(directory)
        XCTAssertThrowsError(try c.execute("INSERT INTO missing (v) VALUES (?)", [.text("x")])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("no such table: missing"), text)
            XCTAssertTrue(text.contains("INSERT INTO missing"), text)
            XCTAssertTrue(text.contains("c.sqlite"), text)
        }
        try c.executeScript("CREATE UNIQUE INDEX u ON t (v)")
        try c.execute("INSERT INTO t (v) VALUES (?)", [.integer(1)])
        XCTAssertThrowsError(try c.execute("INSERT INTO t (v) VALUES (?)", [.integer(1)])) { error in
            XCTAssertTrue((error as? SQLiteError)?.isUniqueViolation == true, "\(error)")
            XCTAssertEqual((error as? SQLiteError)?.arguments, [.integer(1)])
        }
    }

    func testAStatementUsedInsideItsOwnRowLoopGetsAFreshCopy() throws {
        let directory = try TemporaryDirectory()
        let c = try connection(directory)
        for n in 1...3 { try c.execute("INSERT INTO t (v) VALUES (?)", [.integer(Int64(n))]) }
        var pairs = 0
        try c.forEachRow("SELECT v FROM t", []) { _ in
            try c.forEachRow("SELECT v FROM t", []) { _ in pairs += 1 }
        }
        XCTAssertEqual(pairs, 9)
    }

    func testTheStatementCacheStaysBounded() throws {
        let directory = try TemporaryDirectory()
        let c = try connection(directory)
        for n in 0..<1200 { XCTAssertEqual(try c.scalar("SELECT \(n) + ?", [.integer(1)]), .integer(Int64(n + 1))) }
    }

    func testATransactionThatThrowsRollsBack() throws {
        let directory = try TemporaryDirectory()
        let c = try connection(directory)
        struct Stop: Error {}
        XCTAssertThrowsError(try c.transaction {
            try c.execute("INSERT INTO t (v) VALUES (1)")
            throw Stop()
        })
        XCTAssertEqual(try c.scalar("SELECT count(*) FROM t"), .integer(0))
    }

    func testASecondWriterWaitsForTheBusyTimeoutThenFails() throws {
        let directory = try TemporaryDirectory()
        let first = try connection(directory)
        let second = try connection(directory, busyTimeout: 0.2)
        try first.execute("BEGIN IMMEDIATE")
        let start = Date()
        XCTAssertThrowsError(try second.transaction { try second.execute("INSERT INTO t (v) VALUES (2)") }) { error in
            XCTAssertTrue((error as? SQLiteError)?.isBusy == true, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.15)
        try first.execute("COMMIT")
        XCTAssertNoThrow(try second.transaction { try second.execute("INSERT INTO t (v) VALUES (2)") })
    }
}
