// The HTTP side of `pim sync`: WebDAV requests (PROPFIND, REPORT, PUT, DELETE) to a CalDAV or
// CardDAV server, one at a time or a few at once, with Basic authentication, through
// FoundationNetworking. Every failure names the request and the URL.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a server answered.
struct DAVResponse {
    var status: Int
    /// Header fields by lower-case name.
    var headers: [String: String]
    var body: Data

    var isSuccess: Bool { (200..<300).contains(status) }
    /// The status as a server's status line has it: `412 precondition failed`.
    var statusLine: String { "\(status) " + HTTPURLResponse.localizedString(forStatusCode: status) }
    /// The entity tag of what a PUT stored (RFC 4918 8.6), when the server gives it.
    var etag: String? { headers["etag"] }
}

/// A client of one CalDAV or CardDAV account.
final class DAVClient {
    private let session: URLSession
    private let authorization: String?
    private let challenges = ChallengeRecorder()

    /// How long requests may go without an answer: one waits this long; of several on their
    /// way, each answer gives the others this long again (a server that takes them one at a
    /// time is slow, not stalled).
    let timeout: TimeInterval
    /// How many requests ``sendAll(_:)`` keeps in flight: the round trips to a distant server
    /// overlap, and the server is not flooded (DAVx5 and Thunderbird keep a few too).
    static let concurrentRequests = 4

    /// A client that sends `user` and `password` (Basic, RFC 7617) when both are given, and
    /// gives up on requests that go `timeout` seconds without an answer.
    init(user: String?, password: String?, timeout: TimeInterval = PIMStore.defaultSyncTimeout) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        // The client keeps time itself: URLSession's timer starts when a request is sent, and a
        // request waiting behind others at a server that takes one at a time would time out
        // however steadily the server answers.
        configuration.timeoutIntervalForRequest = 7 * 86_400
        configuration.timeoutIntervalForResource = 7 * 86_400
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
        if let user, let password {
            authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends one request and waits for the answer. Throws when the server cannot be reached or
    /// refuses the credentials; any other status is the caller's to judge.
    func send(_ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil) throws(PIMError) -> DAVResponse {
        try sendAll([DAVRequest(method: method, url: url, headers: headers, body: body)])[0].get()
    }

    /// Sends `requests`, up to ``concurrentRequests`` at a time, and waits for every answer:
    /// each the response, or the error ``send(_:_:headers:body:)`` would throw for it, in the
    /// order of `requests`. Once a request fails (the server cannot be reached, or refuses the
    /// credentials), the requests not sent yet are not sent: they fail too. When no answer comes
    /// for ``timeout`` seconds, the requests still waiting are cancelled and fail.
    func sendAll(_ requests: [DAVRequest]) -> [Result<DAVResponse, PIMError>] {
        let answers = Answers(count: requests.count)
        let slots = DispatchSemaphore(value: Self.concurrentRequests)
        let group = DispatchGroup()
        var tasks: [URLSessionDataTask] = []
        var stalled = false
        for (index, request) in requests.enumerated() {
            // A slot frees when an answer comes: none for `timeout` seconds means a stalled server.
            if slots.wait(timeout: .now() + timeout) == .timedOut {
                stalled = true
                break
            }
            if answers.failed {
                slots.signal()
                break
            }
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            if let authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
            urlRequest.httpBody = request.body
            group.enter()
            let task = session.dataTask(with: urlRequest) { data, response, error in
                answers.set(index, data: data, response: response as? HTTPURLResponse, error: error)
                slots.signal()
                group.leave()
            }
            tasks.append(task)
            task.resume()
        }
        if !stalled {
            var answered = answers.count
            while group.wait(timeout: .now() + timeout) == .timedOut {
                // Answers still coming: the server is slow, not stalled.
                guard answers.count > answered else {
                    stalled = true
                    break
                }
                answered = answers.count
            }
        }
        if stalled {
            for task in tasks { task.cancel() }
            // A cancelled request ends at once; one that does not is failed all the same.
            _ = group.wait(timeout: .now() + 10)
        }
        return requests.indices.map { index in
            let request = requests[index]
            let what = "\(request.method) \(request.url.absoluteString)"
            guard index < tasks.count else {
                return .failure(PIMError.server(stalled ? "\(what): not sent: no answer came within \(Int(timeout)) seconds"
                                                        : "\(what): not sent: an earlier request failed"))
            }
            let refused = "401 Unauthorized: " + (authorization == nil ? "no user name was given (--user, --password-file)"
                                                                     : "the user name or password was refused")
            if challenges.take(tasks[index].taskIdentifier) { return .failure(PIMError.server("\(what): \(refused)")) }
            guard let answer = answers[index], !(stalled && answer.isCancellation) else {
                return .failure(PIMError.server("\(what): no answer within \(Int(timeout)) seconds"))
            }
            if let error = answer.error { return .failure(PIMError.server("\(what): \(error.localizedDescription)")) }
            guard let response = answer.response else { return .failure(PIMError.server("\(what): no HTTP answer")) }
            var fields: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
            }
            if response.statusCode == 401 { return .failure(PIMError.server("\(what): \(refused)")) }
            return .success(DAVResponse(status: response.statusCode, headers: fields, body: answer.data ?? Data()))
        }
    }

    /// Throws unless `response` is a success, naming the request and the status.
    static func requireSuccess(_ response: DAVResponse, _ method: String, _ url: URL) throws(PIMError) {
        guard response.isSuccess else {
            throw PIMError.server("\(method) \(url.absoluteString): the server answered \(response.statusLine)")
        }
    }

    /// Cancels every authentication challenge (a 401 with WWW-Authenticate), remembering the
    /// task it came for: the credentials go with each request already, and FoundationNetworking's
    /// default handling of a challenge never completes the request.
    private final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var challenged: Set<Int> = []

        /// Whether the task numbered `identifier` was challenged (forgetting it).
        func take(_ identifier: Int) -> Bool { lock.withLock { challenged.remove(identifier) != nil } }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
            let identifier = task.taskIdentifier
            lock.withLock { _ = challenged.insert(identifier) }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    /// What the completion handlers hand back to the waiting caller, by request.
    private final class Answers: @unchecked Sendable {
        struct Answer {
            var data: Data?
            var response: HTTPURLResponse?
            var error: (any Error)?

            /// Whether the request was cancelled (by a stalled batch) rather than answered.
            var isCancellation: Bool { (error as? URLError)?.code == .cancelled }
        }

        private let lock = NSLock()
        private var answers: [Answer?]
        private var answered = 0
        private var failures = 0

        init(count: Int) { answers = Array(repeating: nil, count: count) }

        /// How many answers have come.
        var count: Int { lock.withLock { answered } }

        /// Whether a request failed: no answer from the server, or a 401.
        var failed: Bool { lock.withLock { failures > 0 } }

        subscript(index: Int) -> Answer? { lock.withLock { answers[index] } }

        func set(_ index: Int, data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
            lock.withLock {
                answers[index] = Answer(data: data, response: response, error: error)
                answered += 1
                if error != nil || response?.statusCode == 401 { failures += 1 }
            }
        }
    }
}

/// One request of ``DAVClient/sendAll(_:)``.
struct DAVRequest {
    var method: String
    var url: URL
    var headers: [String: String] = [:]
    var body: Data?
}
