// The store options that turn on external record files (Core Data's Spotlight integration, talk
// 001): a file per object, kept by the coordinator beside the store for a desktop search
// indexer. Read once when a store is added; a bad option fails the add, naming the option.
import Foundation

/// The folder external record files go in (a path or a file URL): each object's file is
/// `<folder>/<store UUID>/<Entity>/p<key>.<extension>`. Without it a store keeps no record files.
public let NSExternalRecordsDirectoryOption = "NSExternalRecordsDirectoryOption"
/// The extension of the record files: one string for every entity, or a dictionary from entity
/// name to extension (sub-entities take their parent's), in which case only those entities have
/// files. Required with ``NSExternalRecordsDirectoryOption``.
public let NSExternalRecordExtensionOption = "NSExternalRecordExtensionOption"
/// The files' format: ``NSXMLExternalRecordType`` (the default, as in Core Data),
/// ``NSBinaryExternalRecordType`` or ``XHTMLExternalRecordType``.
public let NSExternalRecordsFileFormatOption = "NSExternalRecordsFileFormatOption"
/// The time zone whose wall-clock time XHTML records write dates in (a `TimeZone` or its
/// identifier); without it they are in UTC. Fields hold them as `YYYYMMDDHHMMSS`.
/// An application whose users search by their own days (a calendar's) gives their zone.
public let ExternalRecordsTimeZoneOption = "ExternalRecordsTimeZoneOption"
/// Records as XML property lists (Core Data's default format).
public let NSXMLExternalRecordType = ExternalRecordFormat.xml.rawValue
/// Records as binary property lists.
public let NSBinaryExternalRecordType = ExternalRecordFormat.binary.rawValue
/// Records as XHTML pages whose `<title>` and `<meta>` fields desktop indexers (recoll, Tracker)
/// read with their stock HTML code.
public let XHTMLExternalRecordType = ExternalRecordFormat.xhtml.rawValue

/// The formats of external record files.
public enum ExternalRecordFormat: String, Sendable, CaseIterable {
    /// An XML property list: the record's values by property name, and the keys of
    /// ``PersistentStoreCoordinator/elementsDerived(fromExternalRecordAt:)``.
    case xml
    /// The same property list in binary form.
    case binary
    /// An XHTML page: a `<title>`, a `<meta>` per recorded property and a readable body.
    case xhtml
}

/// A store's external record settings, from its options.
struct ExternalRecordsConfiguration: Sendable {
    /// The folder of every store's record folders.
    let directory: URL
    let format: ExternalRecordFormat
    /// The extension of every recorded entity, when one extension was given.
    let commonExtension: String?
    /// Extensions by entity name, when a dictionary was given.
    let extensionsByEntity: [String: String]
    /// The zone XHTML dates are written in; nil for UTC.
    let timeZone: TimeZone?

    /// The settings `options` ask for, or nil when they name no records folder.
    init?(options: [String: any Sendable]) throws {
        guard let folder = options[NSExternalRecordsDirectoryOption] else { return nil }
        switch folder {
        case let path as String where path.hasPrefix("/"):
            directory = URL(fileURLWithPath: path, isDirectory: true)
        case let url as URL where url.isFileURL:
            directory = url
        default:
            throw StoreError.unknownStore("\(NSExternalRecordsDirectoryOption): expected an absolute path or a file URL, got \(String(reflecting: folder))")
        }
        switch options[NSExternalRecordsFileFormatOption] {
        case nil: format = .xml
        case let format as ExternalRecordFormat: self.format = format
        case let name as String:
            guard let format = ExternalRecordFormat(rawValue: name) else {
                throw StoreError.unknownStore("\(NSExternalRecordsFileFormatOption): unknown format \"\(name)\" (expected "
                    + ExternalRecordFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + ")")
            }
            self.format = format
        case let other?:
            throw StoreError.unknownStore("\(NSExternalRecordsFileFormatOption): expected a format name, got \(String(reflecting: other))")
        }
        switch options[ExternalRecordsTimeZoneOption] {
        case nil: timeZone = nil
        case let zone as TimeZone: timeZone = zone
        case let name as String:
            guard let zone = TimeZone(identifier: name) else {
                throw StoreError.unknownStore("\(ExternalRecordsTimeZoneOption): no time zone \"\(name)\"")
            }
            timeZone = zone
        case let other?:
            throw StoreError.unknownStore("\(ExternalRecordsTimeZoneOption): expected a time zone, got \(String(reflecting: other))")
        }
        switch options[NSExternalRecordExtensionOption] {
        case let single as String:
            commonExtension = try Self.checkedExtension(single, for: nil)
            extensionsByEntity = [:]
        case let byEntity as [String: String] where !byEntity.isEmpty:
            commonExtension = nil
            extensionsByEntity = try byEntity.reduce(into: [:]) { result, entry in
                result[entry.key] = try Self.checkedExtension(entry.value, for: entry.key)
            }
        case nil:
            throw StoreError.unknownStore("\(NSExternalRecordsDirectoryOption) needs \(NSExternalRecordExtensionOption): the records' file extension")
        case let other?:
            throw StoreError.unknownStore("\(NSExternalRecordExtensionOption): expected an extension or extensions by entity name, got \(String(reflecting: other))")
        }
    }

    /// The extension without a leading dot; refused when it could not be a file name's end.
    private static func checkedExtension(_ text: String, for entity: String?) throws -> String {
        let trimmed = text.hasPrefix(".") ? String(text.dropFirst()) : text
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64, !trimmed.contains("/"), !trimmed.contains("\0") else {
            throw StoreError.unknownStore("\(NSExternalRecordExtensionOption)\(entity.map { " for \($0)" } ?? ""): \"\(text)\" is not a file extension")
        }
        return trimmed
    }

    /// The extension of `entity`'s files: its own, an ancestor's, or the common one.
    func fileExtension(of entity: EntityDescription) -> String? {
        if let commonExtension { return commonExtension }
        var current: EntityDescription? = entity
        while let candidate = current {
            if let found = extensionsByEntity[candidate.name] { return found }
            current = candidate.superentity
        }
        return nil
    }
}
