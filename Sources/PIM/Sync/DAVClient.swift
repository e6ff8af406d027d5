// The HTTP side of `pim sync`: WebDAV requests (PROPFIND, REPORT, PUT, DELETE) to a CalDAV or
// CardDAV server, one at a time, with Basic authentication, through FoundationNetworking. Every
// failure names the request and the URL.
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

    /// How long a request may wait for its answer.
    static let timeout: TimeInterval = 120

    /// A client that sends `user` and `password` (Basic, RFC 7617) when both are given.
    init(user: String?, password: String?) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Self.timeout
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
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        challenges.reset()
        let task = session.dataTask(with: request) { data, response, error in
            answer.data = data
            answer.response = response as? HTTPURLResponse
            answer.error = error
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + Self.timeout) == .timedOut {
            task.cancel()
            throw PIMError.server("\(method) \(url.absoluteString): no answer within \(Int(Self.timeout)) seconds")
        }
        if challenges.challenged {
            let who = authorization == nil ? "no user name was given (--user, --password-file)" : "the user name or password was refused"
            throw PIMError.server("\(method) \(url.absoluteString): 401 Unauthorized: \(who)")
        }
        if let error = answer.error {
            throw PIMError.server("\(method) \(url.absoluteString): \(error.localizedDescription)")
        }
        guard let response = answer.response else {
            throw PIMError.server("\(method) \(url.absoluteString): no HTTP answer")
        }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        let result = DAVResponse(status: response.statusCode, headers: fields, body: answer.data ?? Data())
        if result.status == 401 {
            let who = authorization == nil ? "no user name was given (--user, --password-file)" : "the user name or password was refused"
            throw PIMError.server("\(method) \(url.absoluteString): 401 Unauthorized: \(who)")
        }
        return result
    }

    /// Throws unless `response` is a success, naming the request and the status.
    static func requireSuccess(_ response: DAVResponse, _ method: String, _ url: URL) throws(PIMError) {
        guard response.isSuccess else {
            throw PIMError.server("\(method) \(url.absoluteString): the server answered \(response.statusLine)")
        }
    }

    /// Cancels every authentication challenge (a 401 with WWW-Authenticate), remembering it:
    /// the credentials go with each request already, and FoundationNetworking's default handling
    /// of a challenge never completes the request.
    private final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var seen = false

        var challenged: Bool { lock.withLock { seen } }
        func reset() { lock.withLock { seen = false } }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
            lock.withLock { seen = true }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    /// What the completion handler hands back to the waiting caller (written before the
    /// semaphore is signalled, read after it is waited on).
    private final class Answer: @unchecked Sendable {
        var data: Data?
        var response: HTTPURLResponse?
        var error: (any Error)?
    }
}
