// `--feed`: what importing a web-service XML feed costs. N contacts (W1's values) in one XML
// document: streamed by libxml2's reader with no other work (the floor); read record by record
// (expand, six precompiled XPaths) and inserted with the store's SQL through the SQLite C API
// (raw); imported by FeedImport through a mapping into a new store and saved (ObjectGraph); and
// imported again into the store that holds them (every record unchanged). Not one of issue 7's
// workloads: the ratio that counts is the import's to raw.
import CLibXML2Raw
import FeedImport
import Foundation
import ObjectGraph

enum FeedImports {
    struct Result {
        var name: String
        var timing: Timing
    }

    static let namespace = "urn:objectgraph:benchmark"

    /// The mapping FeedImport reads the feed with.
    static let mappingJSON = """
        {"name": "benchmark", "namespaces": {"c": "\(namespace)"},
         "records": [{"select": "c:contacts/c:contact", "entity": "Contact", "key": "@id",
                      "attributes": {"name": "c:name", "email": "c:email", "age": {"xpath": "c:age", "type": "int"},
                                     "created": {"xpath": "c:created", "type": "datetime"},
                                     "score": {"xpath": "c:score", "type": "number"}}}]}
        """

    /// Contacts imported from a source, keyed within it.
    static let model: ManagedObjectModel = ManagedObjectModel {
        Entity("Contact") {
            Attribute("age", .integer32, default: 0)
            Attribute("created", .date)
            Attribute("email", .string)
            Attribute("externalID", .string)
            Attribute("name", .string)
            Attribute("score", .double, default: 0.0)
            Attribute("source", .string)
        }
    }

    static func measure(_ harness: Harness) throws -> [Result] {
        let n = harness.scale.rows
        try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
        let feed = harness.directory.appendingPathComponent("contacts.xml")
        try writeFeed(n, to: feed)
        let mapping = try FeedMapping(json: Data(mappingJSON.utf8), origin: "benchmark.json")
        let stream = try harness.time(Runner(setUp: { _ in }) { _ in
            { try streamOnly(feed) }
        }, writes: false, in: harness.directory.appendingPathComponent("feed-stream"))
        let raw = try harness.time(Runner(setUp: createStore) { database in
            let connection = try RawConnection(path: database.path)
            return { try rawImport(feed, into: connection) }
        }, writes: true, in: harness.directory.appendingPathComponent("feed-raw"))
        let imported = try harness.time(Runner(setUp: createStore) { database in
            let context = try self.context(at: database)
            return {
                let report = try FeedImporter(mapping: mapping, context: context, options: FeedImportOptions(source: "benchmark"))
                    .importFeed(at: feed)
                try context.save()
                return report.inserted
            }
        }, writes: true, in: harness.directory.appendingPathComponent("feed-import"))
        let again = try harness.time(Runner(setUp: { database in
            try createStore(at: database)
            let context = try self.context(at: database)
            _ = try FeedImporter(mapping: mapping, context: context, options: FeedImportOptions(source: "benchmark")).importFeed(at: feed)
            try context.save()
        }) { database in
            let context = try self.context(at: database)
            return {
                let report = try FeedImporter(mapping: mapping, context: context, options: FeedImportOptions(source: "benchmark"))
                    .importFeed(at: feed)
                try context.save()
                return report.unchanged
            }
        }, writes: true, in: harness.directory.appendingPathComponent("feed-again"))
        return [Result(name: "stream only (libxml2 reader)", timing: stream), Result(name: "raw (reader, XPath, SQLite C API)", timing: raw),
                Result(name: "ObjectGraph import and save", timing: imported), Result(name: "ObjectGraph import again (unchanged)", timing: again)]
    }

    static func report(_ results: [Result], rows: Int) -> String {
        let raw = results.first { $0.name.hasPrefix("raw") }?.timing.median ?? 0
        let lines = results.map { result in
            String(format: "  %@ %9.1f ms [%.1f–%.1f]  ÷ raw %.2f", result.name.padding(toLength: 38, withPad: " ", startingAt: 0),
                   result.timing.median, result.timing.min, result.timing.max, raw > 0 ? result.timing.median / raw : 0)
        }
        return (["Feed import, N = \(rows) contacts in one XML document"] + lines).joined(separator: "\n")
    }

    // MARK: Fixtures

    static func writeFeed(_ n: Int, to url: URL) throws {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<contacts xmlns=\"\(namespace)\">\n"
        text.reserveCapacity(n * 220)
        let formatter = ISO8601DateFormatter()
        for i in 0..<n {
            let created = formatter.string(from: Date(timeIntervalSinceReferenceDate: PersonValues.created(i)))
            text += "  <contact id=\"c\(i)\"><name>\(PersonValues.name(i))</name><email>\(PersonValues.email(i))</email>"
                + "<age>\(PersonValues.age(i))</age><created>\(created)</created><score>\(PersonValues.score(i))</score></contact>\n"
        }
        text += "</contacts>\n"
        try Data(text.utf8).write(to: url)
    }

    static func createStore(at url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
    }

    static func context(at url: URL) throws -> ManagedObjectContext {
        try BenchmarkModel.context(at: url, model: model)
    }

    static let readerOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// Reads every node of the document and does nothing with it; returns the element count.
    static func streamOnly(_ feed: URL) throws -> Int {
        guard let reader = xmlReaderForFile(feed.path, nil, readerOptions) else { throw RawSQLiteError(description: "cannot open \(feed.path)") }
        defer { xmlFreeTextReader(reader) }
        var elements = 0
        var status = xmlTextReaderRead(reader)
        while status == 1 {
            if xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue), xmlTextReaderDepth(reader) == 1 { elements += 1 }
            status = xmlTextReaderRead(reader)
        }
        return elements
    }

    /// The raw import: each contact element expanded, its six values read by precompiled XPaths,
    /// converted, and inserted with the store's SQL in one transaction (after the store's key
    /// allocation, and the look-up of what the source holds, as an import does).
    static func rawImport(_ feed: URL, into connection: RawConnection) throws -> Int {
        guard let reader = xmlReaderForFile(feed.path, nil, readerOptions) else { throw RawSQLiteError(description: "cannot open \(feed.path)") }
        defer { xmlFreeTextReader(reader) }
        let existing = try connection.prepare("SELECT Z_PK, Z_OPT, \"ZEXTERNALID\" FROM \"ZCONTACT\" WHERE \"ZSOURCE\" = ?")
        existing.bind(1, "benchmark")
        var known: [String: Int64] = [:]
        while try existing.step() { known[existing.text(2)] = existing.int64(0) }
        var rows: [(id: String, name: String, email: String, age: Int64, created: Double, score: Double)] = []
        var context: xmlXPathContextPtr?
        var expressions: [xmlXPathCompExprPtr] = []
        defer {
            for expression in expressions { xmlXPathFreeCompExpr(expression) }
            if let context { xmlXPathFreeContext(context) }
        }
        var status = xmlTextReaderRead(reader)
        while status == 1 {
            guard xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue), xmlTextReaderDepth(reader) == 1,
                  let node = xmlTextReaderExpand(reader) else {
                status = xmlTextReaderRead(reader)
                continue
            }
            if context == nil {
                context = xmlXPathNewContext(xmlTextReaderCurrentDoc(reader))
                _ = xmlXPathRegisterNs(context, chars("c"), chars(namespace))
                for path in ["@id", "c:name", "c:email", "c:age", "c:created", "c:score"] {
                    expressions.append(path.withCString { xmlXPathCtxtCompile(context, UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) })
                }
            }
            context?.pointee.node = node
            let values = expressions.map { expression -> String in
                guard let result = xmlXPathCompiledEval(expression, context) else { return "" }
                defer { xmlXPathFreeObject(result) }
                guard let text = xmlXPathCastToString(result) else { return "" }
                defer { free(text) }
                return String(cString: text)
            }
            rows.append((values[0], values[1], values[2], Int64(values[3]) ?? 0, isoSeconds(values[4]), Double(values[5]) ?? 0))
            status = xmlTextReaderNext(reader)
        }
        let first = try RawStoreSQL.allocateKeys(rows.count, entity: 1, on: connection)
        try connection.execute("BEGIN IMMEDIATE")
        let insert = try connection.prepare("INSERT INTO \"ZCONTACT\" (Z_PK, Z_ENT, Z_OPT, \"ZAGE\", \"ZCREATED\", \"ZEMAIL\", \"ZEXTERNALID\", \"ZNAME\", \"ZSCORE\", \"ZSOURCE\") VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?)")
        for (index, row) in rows.enumerated() where known[row.id] == nil {
            insert.bind(1, first + Int64(index))
            insert.bind(2, row.age)
            insert.bind(3, row.created)
            insert.bind(4, row.email)
            insert.bind(5, row.id)
            insert.bind(6, row.name)
            insert.bind(7, row.score)
            insert.bind(8, "benchmark")
            try insert.run()
        }
        try connection.execute("COMMIT")
        return rows.count
    }

    private static func chars(_ text: String) -> UnsafePointer<xmlChar> {
        // Interned for the run: registered names must outlive the context.
        UnsafePointer(strdup(text)!).withMemoryRebound(to: xmlChar.self, capacity: text.utf8.count + 1) { $0 }
    }

    /// Seconds since 2001 of `YYYY-MM-DDTHH:MM:SSZ`.
    private static func isoSeconds(_ text: String) -> Double {
        let digits = Array(text.utf8)
        guard digits.count >= 20 else { return 0 }
        func number(_ start: Int, _ count: Int) -> Int { digits[start..<start + count].reduce(0) { $0 * 10 + Int($1 - 48) } }
        var parts = tm()
        parts.tm_year = Int32(number(0, 4) - 1900)
        parts.tm_mon = Int32(number(5, 2) - 1)
        parts.tm_mday = Int32(number(8, 2))
        parts.tm_hour = Int32(number(11, 2))
        parts.tm_min = Int32(number(14, 2))
        parts.tm_sec = Int32(number(17, 2))
        return Double(timegm(&parts)) - 978_307_200
    }
}
