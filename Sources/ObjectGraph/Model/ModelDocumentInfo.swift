// What a model file says about itself rather than about the data: the tools that saved it and
// the flags Xcode's editor keeps on the root `<model>` element. Written back unchanged; not part
// of model equality or version hashes.

/// The editor information on a model file's root element.
public struct ModelDocumentInfo: Sendable, Hashable {
    public var documentVersion: String = "1.0"
    public var lastSavedToolsVersion: String?
    public var systemVersion: String?
    public var minimumToolsVersion: String = "Automatic"
    /// `Swift` or `Objective-C`: the language Xcode generates classes in.
    public var sourceLanguage: String?
    public var usedWithCloudKit: Bool = false
    public var usedWithSwiftData: Bool = false

    public init() {}
}
