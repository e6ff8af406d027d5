// Value transformers by name: how a transformable attribute's values become bytes in a store and
// come back. A model names its transformer (`valueTransformerName`); the program registers one
// under that name at start-up. Without one, stores keep Strings and Data as they are and refuse
// other values, naming the attribute and the missing transformer.
import Foundation
import Synchronization

/// Turns values of a transformable attribute into bytes and back, registered by name (named so
/// as not to clash with Foundation's `ValueTransformer` class).
///
/// ```swift
/// AttributeValueTransformer.setValueTransformer(AttributeValueTransformer(
///     transform: { try JSONEncoder().encode($0 as! [String]) },
///     reverseTransform: { try JSONDecoder().decode([String].self, from: $0) }
/// ), forName: "TagListTransformer")
/// ```
public struct AttributeValueTransformer: Sendable {
    /// Encodes a value for the store.
    public var transform: @Sendable (any Hashable & Sendable) throws -> Data
    /// Decodes stored bytes back into a value.
    public var reverseTransform: @Sendable (Data) throws -> any Hashable & Sendable

    public init(transform: @escaping @Sendable (any Hashable & Sendable) throws -> Data,
                reverseTransform: @escaping @Sendable (Data) throws -> any Hashable & Sendable) {
        self.transform = transform
        self.reverseTransform = reverseTransform
    }

    private static let registry = Mutex<[String: AttributeValueTransformer]>([:])

    /// Registers `transformer` under `name` (nil removes the registration).
    public static func setValueTransformer(_ transformer: AttributeValueTransformer?, forName name: String) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`; for Core Data's default,
    /// `"NSSecureUnarchiveFromData"`, a built-in one when none is registered: property-list values
    /// (and arrays, dictionaries and sets of them) as keyed archives, as Core Data stores them.
    public static func valueTransformer(forName name: String) -> AttributeValueTransformer? {
        if let registered = registry.withLock({ $0[name] }) { return registered }
        return SecureUnarchiveTransformer.names.contains(name) ? SecureUnarchiveTransformer.transformer : nil
    }

    /// The names with a registered transformer.
    public static var valueTransformerNames: [String] {
        registry.withLock { $0.keys.sorted() }
    }
}
