// The feed formats `pim import` reads without a mapping of the user's: the mappings of
// Importers/feeds, built into the binary (XML feeds, and vCard and iCalendar files), and how a
// document's format is told from its start.
import FeedImport
import Foundation

/// The built-in feed mappings, and the choice among them for a document.
public enum FeedFormat {
    /// Every built-in mapping, by name order.
    public static let builtIn: [FeedMapping] = {
        let files: [(String, [UInt8])] = [
            ("atom-xcal", PackageResources.atom_xcal_json), ("dav", PackageResources.dav_json), ("ews", PackageResources.ews_json),
            ("gdata-calendar", PackageResources.gdata_calendar_json), ("gdata-contacts", PackageResources.gdata_contacts_json),
            ("icalendar", PackageResources.icalendar_json), ("rss-event", PackageResources.rss_event_json),
            ("rss-xcal", PackageResources.rss_xcal_json), ("vcard", PackageResources.vcard_json),
            ("xcal", PackageResources.xcal_json), ("xcard", PackageResources.xcard_json),
        ]
        return files.map { name, bytes in
            do {
                return try FeedMapping(json: Data(bytes), origin: "Importers/feeds/\(name).json")
            } catch {
                preconditionFailure("the built-in mapping \(name) is broken: \(error)")
            }
        }
    }()

    /// The built-in mapping named `name`.
    public static func named(_ name: String) throws(PIMError) -> FeedMapping {
        guard let mapping = builtIn.first(where: { $0.name == name }) else {
            throw PIMError.usage("no feed format \"\(name)\" (formats: \(builtIn.map(\.name).joined(separator: ", ")))")
        }
        return mapping
    }

    /// The mapping for the document at `url`, told from its first 64 KiB: the namespaces an XML
    /// document declares there, the BEGIN line a vCard or iCalendar file starts with.
    public static func detect(_ url: URL) throws(PIMError) -> FeedMapping {
        let head: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            head = try handle.read(upToCount: FeedMapping.detectionLength) ?? Data()
        } catch {
            throw PIMError.feed("\(url.path): cannot be read: \(error.localizedDescription)")
        }
        if head.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { throw PIMError.feed("\(url.path): is empty: nothing to import") }
        let candidates = FeedMapping.candidates(forHead: head, among: builtIn)
        guard candidates.count == 1, let mapping = candidates.first else {
            let names = builtIn.map(\.name).joined(separator: ", ")
            if candidates.isEmpty { throw PIMError.usage("\(url.path): not a feed format pim knows; name one with --format (\(names)) or give --mapping") }
            throw PIMError.usage("\(url.path): could be \(candidates.map(\.name).joined(separator: " or ")); name one with --format")
        }
        return mapping
    }
}
