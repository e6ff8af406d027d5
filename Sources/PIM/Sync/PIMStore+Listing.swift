// How `pim sync` learns what a collection holds: the href and entity tag of every resource.
//
// A server that keeps sync tokens (RFC 6578: Radicale, Nextcloud, Baïkal, iCloud, Fastmail) is
// asked only for what changed since the last run's token (a sync-collection report): the
// resources added or changed, with their new tags, and those removed. Applied to the listing the
// last run kept (SyncCollection.listing), that gives what a full listing would, so the rest of
// the sync works the same either way; an unchanged collection costs one small request. The first
// run asks with no token and gets every resource. A token the server no longer takes (refused
// as not a valid sync token, or any client error) is dropped and the collection listed whole
// again; a server that refuses the report itself is listed with PROPFIND (depth 1) from then on.
import Foundation

/// A resource of a collection as the server last listed it.
struct ListedResource: Codable, Equatable {
    /// The href as the server writes it.
    var href: String
    /// Its entity tag ("" when the server gave none).
    var etag: String
}

extension SyncCollection {
    /// The collection's resources as the server last listed them, by href as compared
    /// (``PIMStore/hrefKey(_:base:)``); empty when none is kept.
    var listedResources: [String: ListedResource] {
        get { Self.decodedState(listing) }
        set { listing = Self.encodedState(newValue) }
    }
}

/// How a run listed its collection.
public enum SyncListing: Sendable, Equatable {
    /// Every resource (PROPFIND, or a sync-collection report with no token).
    case whole
    /// Only what changed since the last run's sync token: `count` resources added, changed or
    /// removed on the server.
    case changes(count: Int)
}

extension PIMStore {
    /// The resources of `collection` on the server (by href as compared), and how they were
    /// listed. Keeps the new sync token and the listing on the collection (saved with the run).
    func listResources(of collection: SyncCollection, client: DAVClient,
                       base: URL) throws(PIMError) -> (resources: [String: ListedResource], listing: SyncListing) {
        if !collection.syncTokensRefused, let listed = try listChanges(of: collection, client: client, base: base) {
            return listed
        }
        var resources: [String: ListedResource] = [:]
        for member in try propfind(client, base, depth: "1", properties: ["<d:getetag/>", "<d:resourcetype/>"])
        where !member.isCollection && (member.status ?? 200) < 300 {
            resources[Self.hrefKey(member.href, base: base)] = ListedResource(href: member.href, etag: member.etag ?? "")
        }
        collection.syncToken = nil
        collection.listing = nil
        return (resources, .whole)
    }

    /// The listing through sync-collection reports, starting from the collection's token (none:
    /// every resource). Nil when the server refuses the report: the collection is marked to be
    /// listed with PROPFIND from then on.
    private func listChanges(of collection: SyncCollection, client: DAVClient,
                             base: URL) throws(PIMError) -> (resources: [String: ListedResource], listing: SyncListing)? {
        var token = collection.syncToken ?? ""
        var resources = token.isEmpty ? [:] : collection.listedResources
        if resources.isEmpty && collection.listing == nil { token = "" }
        var whole = token.isEmpty
        var changed: Set<String> = []
        let own = Self.hrefKey(base.absoluteString, base: base)
        // A server may answer in parts (507 on the collection itself, RFC 6578 3.6), each with
        // the token to ask on from; a bound keeps a server that never ends from looping.
        for _ in 0..<1_000 {
            let body = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
                + #"<d:sync-collection xmlns:d="DAV:">"#
                + (token.isEmpty ? "<d:sync-token/>" : "<d:sync-token>\(Self.escapedText(token))</d:sync-token>")
                + "<d:sync-level>1</d:sync-level><d:prop><d:getetag/><d:resourcetype/></d:prop></d:sync-collection>"
            let response = try client.send("REPORT", base, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                                           body: Data(body.utf8))
            guard response.status == 207 else {
                if !token.isEmpty, [400, 403, 409, 410, 412, 422].contains(response.status) {
                    // The server no longer takes the token (RFC 6578's valid-sync-token; some
                    // servers answer 409 or 410 without naming it): list everything again, and
                    // judge the report itself by that answer.
                    token = ""
                    resources = [:]
                    whole = true
                    continue
                }
                if [400, 403, 405, 415, 422, 501].contains(response.status) {
                    collection.syncTokensRefused = true
                    return nil
                }
                throw PIMError.server("REPORT \(base.absoluteString) (sync-collection): the server answered \(response.statusLine)")
            }
            let answer = try DAVMultistatus.read(response.body, from: base)
            guard let next = answer.syncToken, !next.isEmpty else {
                // Not a sync-collection answer after all: a server that ignores the report's name.
                collection.syncTokensRefused = true
                return nil
            }
            var truncated = false
            for member in answer.members {
                let key = Self.hrefKey(member.href, base: base)
                if key == own || member.isCollection {
                    if member.status == 507 { truncated = true }
                    continue
                }
                changed.insert(key)
                if member.status == 404 {
                    resources[key] = nil
                } else if (member.status ?? 200) < 300 {
                    resources[key] = ListedResource(href: member.href, etag: member.etag ?? "")
                }
            }
            token = next
            if !truncated {
                if collection.syncToken != token { collection.syncToken = token }
                if whole || !changed.isEmpty || collection.listing == nil { collection.listedResources = resources }
                return (resources, whole ? .whole : .changes(count: changed.count))
            }
        }
        throw PIMError.server("REPORT \(base.absoluteString) (sync-collection): the server's answer did not end after 1,000 parts")
    }
}
