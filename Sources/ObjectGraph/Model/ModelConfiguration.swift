// A configuration: a named group of a model's entities, so that a coordinator can put the
// objects of each group in its own store. Xcode's `<configuration>` element.

/// A named group of entities that one store holds.
///
/// ```swift
/// ModelConfiguration(name: "Cloud", entityNames: ["Person", "Task"])
/// ```
public struct ModelConfiguration: Sendable, Hashable {
    public var name: String
    /// The names of the member entities, in the model file's order.
    public var entityNames: [String]
    /// Whether Xcode marks the configuration for CloudKit.
    public var usedWithCloudKit: Bool
    /// Where the configuration was read from, when it came from a model file.
    public var sourceLocation: ModelSourceLocation?
    /// Where each member was named, by entity name (the first place), when read from a file.
    public var memberLocations: [String: ModelSourceLocation] = [:]

    public init(name: String, entityNames: [String], usedWithCloudKit: Bool = false) {
        self.name = name
        self.entityNames = entityNames
        self.usedWithCloudKit = usedWithCloudKit
    }

    /// Equal when they have the same name, members and flag.
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.entityNames == rhs.entityNames && lhs.usedWithCloudKit == rhs.usedWithCloudKit
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(entityNames)
    }
}
