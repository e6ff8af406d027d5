// A real CalDAV and CardDAV server for the sync tests: Radicale (PyPI `radicale`), started on a
// free loopback port with its collections in the test's temporary folder, and stopped after the
// test. Without Radicale the sync tests are skipped, unless PIM_TESTS_REQUIRE_RADICALE=1 (.ci/run
// sets it, and installs Radicale). The server is also the tests' "other client": they read, put
// and delete resources on it directly over HTTP.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

final class RadicaleServer {
    let port: Int
    private let process: Process
    private let log: URL

    /// The server's root URL.
    var root: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Starts Radicale with its storage under `folder`: no authentication, or Basic
    /// authentication of `users` (name to password) when given. With `logRequests`, the server
    /// logs every request it receives (``requestCount(_:)`` reads them). Without `syncTokens`,
    /// Radicale's storage is extended (a storage plugin, Radicale's own way) to refuse every
    /// sync-collection report, as a server without RFC 6578 does. With `countsWrites`, the
    /// storage records how many PUT and DELETE requests it has had at once at most
    /// (``writesAtOnce()``); to make an overlap certain for a client that sends a few requests at
    /// once, the first PUT and the first DELETE wait, 10 seconds at most, for a second to arrive.
    /// With `writeSeconds`, every PUT and DELETE holds the storage (Radicale writes one at a
    /// time) that many seconds before it writes: a slow but steady server.
    init(folder: URL, users: [String: String]? = nil, logRequests: Bool = false, syncTokens: Bool = true, countsWrites: Bool = false,
         writeSeconds: Double = 0) throws {
        guard let python = Self.python() else {
            if ProcessInfo.processInfo.environment["PIM_TESTS_REQUIRE_RADICALE"] == "1" {
                XCTFail("Radicale is not installed for python3 (python3 -m pip install radicale)")
            }
            throw XCTSkip("Radicale is not installed (python3 -m pip install radicale); .ci/run installs it")
        }
        port = try Self.freePort()
        let home = folder.appendingPathComponent("radicale", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var auth = "type = none"
        if let users {
            let htpasswd = home.appendingPathComponent("users")
            try Data(users.map { "\($0.key):\($0.value)\n" }.joined().utf8).write(to: htpasswd)
            auth = "type = htpasswd\nhtpasswd_filename = \(htpasswd.path)\nhtpasswd_encryption = plain"
        }
        var storageType = ""
        writesRecord = home.appendingPathComponent("writes-at-once.json")
        let plugin = !syncTokens || countsWrites || writeSeconds > 0
        if plugin {
            try Data("""
                # Radicale's file storage, refusing sync-collection reports (a server without RFC 6578)
                # counting the writes in flight, and writing slowly, as the test asks.
                import contextlib, json, threading, time
                from radicale.storage import multifilesystem

                NO_TOKENS = \(syncTokens ? "False" : "True")
                WRITES_RECORD = \(countsWrites ? "\"\(writesRecord.path)\"" : "None")
                WRITE_SECONDS = \(writeSeconds)

                class Collection(multifilesystem.Collection):
                    def sync(self, old_token=""):
                        if NO_TOKENS:
                            raise ValueError("this server keeps no sync tokens")
                        return super().sync(old_token)

                _condition = threading.Condition()
                _in_flight = {}
                _most = {}
                _waited = set()

                class Storage(multifilesystem.Storage):
                    _collection_class = Collection

                    @contextlib.contextmanager
                    def acquire_lock(self, mode, user="", *args, **kwargs):
                        request = kwargs.get("request")
                        counted = WRITES_RECORD is not None and request in ("PUT", "DELETE")
                        if counted:
                            with _condition:
                                _in_flight[request] = _in_flight.get(request, 0) + 1
                                if _in_flight[request] > _most.get(request, 0):
                                    _most[request] = _in_flight[request]
                                    with open(WRITES_RECORD, "w") as record:
                                        json.dump(_most, record)
                                _condition.notify_all()
                                if request not in _waited:
                                    _condition.wait_for(lambda: _in_flight[request] >= 2, timeout=10)
                                    _waited.add(request)
                        try:
                            with super().acquire_lock(mode, user, *args, **kwargs):
                                if WRITE_SECONDS > 0 and request in ("PUT", "DELETE"):
                                    time.sleep(WRITE_SECONDS)
                                yield
                        finally:
                            if counted:
                                with _condition:
                                    _in_flight[request] -= 1

                """.utf8).write(to: home.appendingPathComponent("teststorage.py"))
            storageType = "type = teststorage\n"
        }
        let configuration = home.appendingPathComponent("config")
        try Data("""
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            \(auth)
            [storage]
            \(storageType)filesystem_folder = \(home.appendingPathComponent("collections").path)
            [logging]
            level = \(logRequests ? "info" : "warning")
            """.utf8).write(to: configuration)
        log = home.appendingPathComponent("log")
        try Data().write(to: log)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "radicale", "--config", configuration.path]
        if plugin {
            var environment = ProcessInfo.processInfo.environment
            environment["PYTHONPATH"] = home.path + (environment["PYTHONPATH"].map { ":" + $0 } ?? "")
            process.environment = environment
        }
        process.standardInput = FileHandle.nullDevice
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try waitUntilListening()
    }

    deinit { stop() }

    /// The file where a server started with `countsWrites` records its most writes at once.
    private let writesRecord: URL

    /// The most PUT and DELETE requests the storage has had at once, by method (needs `countsWrites`).
    func writesAtOnce() throws -> [String: Int] {
        guard FileManager.default.fileExists(atPath: writesRecord.path) else { return [:] }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: writesRecord)) as? [String: Int] ?? [:]
    }

    /// How many `method` requests the server has received so far, by its log (Radicale logs
    /// each request before it answers it; needs `logRequests`).
    func requestCount(_ method: String) throws -> Int {
        let text = try String(contentsOf: log, encoding: .utf8)
        return text.components(separatedBy: "\n").filter { $0.contains("] \(method) request for ") }.count
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The python3 that has Radicale, from PATH.
    private static func python() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/python3"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let check = Process()
            check.executableURL = URL(fileURLWithPath: candidate)
            check.arguments = ["-c", "import radicale"]
            check.standardOutput = FileHandle.nullDevice
            check.standardError = FileHandle.nullDevice
            guard (try? check.run()) != nil else { continue }
            check.waitUntilExit()
            if check.terminationStatus == 0 { return candidate }
        }
        return nil
    }

    /// A loopback port no one listens on (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw XCTSkip("no socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw XCTSkip("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Returns once the server accepts connections (it fails the test if Radicale exits or is
    /// not listening within 30 seconds).
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else {
                throw ServerError("Radicale exited (\(process.terminationStatus)): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return }
            // Polling for the listening socket: Radicale says nothing when it is ready.
            usleep(20_000)
        }
        throw ServerError("Radicale did not listen on port \(port) within 30 seconds")
    }

    struct ServerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - HTTP, as another client of the same collections

    /// What the server answered a request.
    struct Answer {
        var status: Int
        var body: String
        var etag: String?
    }

    /// Sends one request to `path` (relative to the root) as `user`.
    @discardableResult
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
                 user: (String, String)? = nil) throws -> Answer {
        var request = URLRequest(url: URL(string: path, relativeTo: root)!.absoluteURL)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let (name, password) = user {
            request.setValue("Basic " + Data("\(name):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        request.httpBody = body.map { Data($0.utf8) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.data = data
            box.response = response as? HTTPURLResponse
            box.error = error
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 60) == .success else { throw ServerError("\(method) \(path): no answer in 60 seconds") }
        if let error = box.error { throw ServerError("\(method) \(path): \(error)") }
        let response = try XCTUnwrap(box.response)
        return Answer(status: response.statusCode, body: String(decoding: box.data ?? Data(), as: UTF8.self),
                      etag: response.value(forHTTPHeaderField: "ETag"))
    }

    private final class Box: @unchecked Sendable {
        var data: Data?
        var response: HTTPURLResponse?
        var error: (any Error)?
    }

    /// Makes the user folder that holds the collection at `path` (`/alice/` for
    /// `/alice/calendar/`), unless it is there.
    private func makeParent(of path: String, user: (String, String)?) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path + "/"
        let answer = try request("MKCOL", parent, user: user)
        guard [201, 405].contains(answer.status) else { throw ServerError("MKCOL \(parent): \(answer.status) \(answer.body)") }
    }

    /// Makes a calendar collection at `path` (`/alice/calendar/`) holding `components`.
    func makeCalendar(_ path: String, name: String? = nil, components: [String] = ["VEVENT", "VTODO"], user: (String, String)? = nil) throws {
        try makeParent(of: path, user: user)
        let comps = components.map { #"<C:comp name="\#($0)"/>"# }.joined()
        let display = name.map { "<displayname>\($0)</displayname>" } ?? ""
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><set><prop>\(display)\
            <C:supported-calendar-component-set>\(comps)</C:supported-calendar-component-set></prop></set></C:mkcalendar>
            """
        let answer = try request("MKCALENDAR", path, headers: ["Content-Type": "application/xml"], body: body, user: user)
        guard answer.status == 201 else { throw ServerError("MKCALENDAR \(path): \(answer.status) \(answer.body)") }
    }

    /// Makes an address book collection at `path`.
    func makeAddressBook(_ path: String, user: (String, String)? = nil) throws {
        try makeParent(of: path, user: user)
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <mkcol xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><set><prop>\
            <resourcetype><collection/><CR:addressbook/></resourcetype></prop></set></mkcol>
            """
        let answer = try request("MKCOL", path, headers: ["Content-Type": "application/xml"], body: body, user: user)
        guard answer.status == 201 else { throw ServerError("MKCOL \(path): \(answer.status) \(answer.body)") }
    }

    /// The hrefs of the resources in the collection at `path`, sorted.
    func resources(in path: String, user: (String, String)? = nil) throws -> [String] {
        let answer = try request("PROPFIND", path, headers: ["Depth": "1", "Content-Type": "application/xml"],
                                 body: #"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/></prop></propfind>"#, user: user)
        guard answer.status == 207 else { throw ServerError("PROPFIND \(path): \(answer.status)") }
        let hrefs = answer.body.components(separatedBy: "<href>").dropFirst().compactMap { $0.components(separatedBy: "</href>").first }
        return hrefs.filter { $0 != path }.sorted()
    }

    /// The text of the resource at `href`.
    func text(of href: String, user: (String, String)? = nil) throws -> String {
        let answer = try request("GET", href, user: user)
        guard answer.status == 200 else { throw ServerError("GET \(href): \(answer.status)") }
        return answer.body
    }
}
