// A model file on disk, as Xcode saves it: a `.xcdatamodeld` bundle of versions (the current one
// named by `.xccurrentversion`), a single `.xcdatamodel` package, or a bare `contents` file.
// Reading turns a version's XML into a ManagedObjectModel and reports every issue at once.
import Foundation

/// A model file: one or more versions of a model, and which of them is current.
///
/// ```swift
/// let file = try ModelFile(url: URL(fileURLWithPath: "Data/Organizer.xcdatamodeld"))
/// file.versionNames            // ["Organizer"]
/// let model = try file.load()  // the current version
/// ```
public struct ModelFile: Sendable {
    /// One version of the model: its name (the `.xcdatamodel` folder without extension) and the
    /// XML file that holds it.
    public struct Version: Sendable, Hashable {
        public var name: String
        public var contentsURL: URL
    }

    /// The result of reading one version: the model (nil when the XML could not be read at all)
    /// and every issue found, warnings included.
    public struct ReadResult: Sendable {
        public var model: ManagedObjectModel?
        public var issues: [ModelIssue]
        /// The file that was read.
        public var path: String

        /// The errors among the issues.
        public var errors: [ModelIssue] { issues.filter { $0.severity == .error } }
    }

    /// The path given: a `.xcdatamodeld`, a `.xcdatamodel` or a `contents` file.
    public let url: URL
    /// The versions, sorted by name (numbers in names compare as numbers).
    public let versions: [Version]
    /// The name of the current version.
    public let currentVersionName: String
    /// What reading the bundle had to assume (an empty or missing `.xccurrentversion`).
    public let notes: [String]

    /// Opens the model file at `url` and finds its versions.
    public init(url: URL) throws(ModelError) {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .fileNotFound(path: path)
        }
        self.url = url
        switch url.pathExtension {
        case "xcdatamodeld":
            guard isDirectory.boolValue else { throw .notAModel(path: path, reason: "a .xcdatamodeld must be a folder") }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            // Versions are the bundle's .xcdatamodel folders: a file so named (the `._Name.xcdatamodel`
            // that macOS leaves when a bundle is copied through tar or a network share) is not one.
            let versions = names.filter { name in
                var isFolder: ObjCBool = false
                return name.hasSuffix(".xcdatamodel")
                    && FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder)
                    && isFolder.boolValue
            }
                .map { Version(name: String($0.dropLast(".xcdatamodel".count)),
                               contentsURL: url.appendingPathComponent($0).appendingPathComponent("contents")) }
                .sorted { $0.name.compare($1.name, options: .numeric) == .orderedAscending }
            guard let newest = versions.last else {
                throw .notAModel(path: path, reason: "the bundle holds no .xcdatamodel version")
            }
            self.versions = versions
            let declared = Self.declaredCurrentVersion(in: url)
            if let declared, versions.contains(where: { $0.name == declared }) {
                currentVersionName = declared
                notes = []
            } else {
                currentVersionName = newest.name
                let reason = declared.map { "names version \"\($0)\", which the bundle does not hold" }
                    ?? "names no current version"
                let choice = versions.count == 1 ? "the only version" : "the newest version"
                notes = [".xccurrentversion \(reason); using \(choice), \"\(newest.name)\""]
            }
        case "xcdatamodel":
            guard isDirectory.boolValue else { throw .notAModel(path: path, reason: "a .xcdatamodel must be a folder") }
            let name = url.deletingPathExtension().lastPathComponent
            versions = [Version(name: name, contentsURL: url.appendingPathComponent("contents"))]
            currentVersionName = name
            notes = []
        default:
            guard !isDirectory.boolValue else {
                throw .notAModel(path: path, reason: "expected a .xcdatamodeld, a .xcdatamodel or a contents file")
            }
            let parent = url.deletingLastPathComponent()
            let name = parent.pathExtension == "xcdatamodel" ? parent.deletingPathExtension().lastPathComponent
                : url.deletingPathExtension().lastPathComponent
            versions = [Version(name: name, contentsURL: url)]
            currentVersionName = name
            notes = []
        }
    }

    /// The names of the versions, sorted.
    public var versionNames: [String] { versions.map(\.name) }

    /// The version named `name`, or the current one.
    public func version(named name: String? = nil) throws(ModelError) -> Version {
        let wanted = name ?? currentVersionName
        let bare = wanted.hasSuffix(".xcdatamodel") ? String(wanted.dropLast(".xcdatamodel".count)) : wanted
        guard let version = versions.first(where: { $0.name == bare }) else {
            throw .unknownVersion(path: url.path, name: wanted, available: versionNames)
        }
        return version
    }

    /// Reads a version (the current one by default) and validates it, collecting every issue.
    public func read(version name: String? = nil) throws(ModelError) -> ReadResult {
        let version = try version(named: name)
        let path = version.contentsURL.path
        let data = try Self.contents(of: path)
        let result = ModelFileReader.readAndValidate(data, path: path)
        if let issue = result.issues.first(where: { $0.kind == .notAModel }) { throw .notAModel(path: path, reason: issue.message) }
        // A file given by another name than `contents` is a model only if it is XML: a README
        // passed by mistake is not a model with a syntax error.
        if version.contentsURL.lastPathComponent != "contents", let issue = result.issues.first(where: { $0.kind == .malformedXML }) {
            throw .notAModel(path: path, reason: "not a .xcdatamodeld, a .xcdatamodel or a contents file, and not XML (\(issue.message))")
        }
        result.model?.sourceURL = version.contentsURL
        result.model?.versionName = version.name
        return result
    }

    /// Reads and validates a version (the current one by default); throws
    /// ``ModelError/invalidModel(path:issues:)`` with every issue when it has errors.
    public func load(version name: String? = nil) throws(ModelError) -> ManagedObjectModel {
        let result = try read(version: name)
        guard let model = result.model, result.errors.isEmpty else {
            throw .invalidModel(path: result.path, issues: result.issues)
        }
        return model
    }

    /// The bytes of a version's XML file, or why there are none: missing, a folder, unreadable.
    private static func contents(of path: String) throws(ModelError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .fileNotFound(path: path) }
        guard !isDirectory.boolValue else { throw .notAModel(path: path, reason: "a contents file must be a file, not a folder") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: path) ? error.localizedDescription : "permission denied"
            throw .unreadableFile(path: path, reason: reason)
        }
    }

    /// The version `.xccurrentversion` names, if it names one.
    private static func declaredCurrentVersion(in bundle: URL) -> String? {
        let plistPath = bundle.appendingPathComponent(".xccurrentversion").path
        guard let data = FileManager.default.contents(atPath: plistPath),
              let root = try? XMLTree.parse(data, path: plistPath),
              let dictionary = root.children(named: "dict").first else { return nil }
        let items = dictionary.children
        for (index, item) in items.enumerated() where item.name == "key" && item.text == "_XCCurrentVersionName" {
            guard index + 1 < items.count, items[index + 1].name == "string" else { return nil }
            let value = items[index + 1].text.trimmingCharacters(in: .whitespacesAndNewlines)
            return value.hasSuffix(".xcdatamodel") ? String(value.dropLast(".xcdatamodel".count)) : value
        }
        return nil
    }
}

extension ManagedObjectModel {
    /// Reads and validates the model at `url` (a `.xcdatamodeld`, `.xcdatamodel` or `contents`
    /// file), the version named `version` or the current one.
    ///
    /// Throws ``ModelError/invalidModel(path:issues:)`` listing every problem when it has errors.
    public convenience init(contentsOf url: URL, version: String? = nil) throws(ModelError) {
        let model = try ModelFile(url: url).load(version: version)
        self.init(adopting: model)
    }

    /// Reads and validates a model from the XML of a `contents` file; `path` names it in issues.
    public convenience init(xmlData data: Data, path: String = "<memory>") throws(ModelError) {
        let result = ModelFileReader.readAndValidate(data, path: path)
        guard let model = result.model, result.errors.isEmpty else {
            throw .invalidModel(path: path, issues: result.issues)
        }
        self.init(adopting: model)
    }

    /// A model that takes over the contents of `other` (which must not be used afterwards).
    convenience init(adopting other: ManagedObjectModel) {
        self.init(entities: other.entities)
        configurations = other.configurations
        fetchRequestTemplates = other.fetchRequestTemplates
        compositeTypes = other.compositeTypes
        versionIdentifiers = other.versionIdentifiers
        documentInfo = other.documentInfo
        sourceURL = other.sourceURL
        versionName = other.versionName
    }
}
