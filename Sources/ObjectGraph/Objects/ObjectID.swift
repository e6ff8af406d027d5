// The identity of a managed object across contexts, threads and processes: its entity, the store
// that holds it and its key there. Temporary until the object is first saved, permanent after;
// the permanent form has a URI (`x-objectgraph://<store-uuid>/<Entity>/p<key>`) that names the
// record outside the program (external record files, the CLIs).
import Foundation
import Synchronization

/// A managed object's identity: `Sendable`, so it is what crosses contexts and threads.
///
/// ```swift
/// let id = task.objectID
/// try await background.perform { let same = try background.existingObject(with: id) }
/// id.uriRepresentation   // x-objectgraph://6F1C.../Task/p42
/// ```
public struct ObjectID: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// How the object is keyed.
    @usableFromInline
    enum Key: Sendable, Hashable, Comparable {
        /// Not saved yet: unique in this process.
        case temporary(UInt64)
        /// Saved: the primary key in its store (unique within the entity's inheritance tree).
        case permanent(Int64)
    }

    /// The object's entity (the concrete one, never an abstract parent).
    ///
    /// Not retained: object IDs are copied into every registry, cache and snapshot, and a
    /// retain per copy was a large share of fetching. An entity lives as long as the process
    /// once an ID names it (``EntityLifetime``).
    public unowned(unsafe) let entity: EntityDescription
    @usableFromInline let key: Key
    /// The store holding the object (``StoreTag/none`` while the ID is temporary), as a tag
    /// rather than its identifier string, so that the ID holds no reference at all: copying and
    /// destroying one is a plain memory copy. Declared after `key` so that it fills the padding
    /// behind the key's case byte (24 bytes in all).
    let storeTag: StoreTag

    /// The identifier (UUID) of the store holding the object; nil while the ID is temporary.
    /// Looked up in the process's table of identifiers (under a lock): stores compare
    /// ``storeTag`` instead.
    public var storeIdentifier: String? { storeTag.identifier }

    private static let nextTemporaryKey = Atomic<UInt64>(1)

    /// A new temporary ID for an object of `entity`, unique in this process.
    public static func temporary(for entity: EntityDescription) -> ObjectID {
        let key = nextTemporaryKey.add(1, ordering: .relaxed).oldValue
        return ObjectID(entity: entity, storeTag: .none, key: .temporary(key))
    }

    /// The permanent ID of the row with primary key `primaryKey` of `entity` in the store
    /// identified by `storeIdentifier`. The coordinator makes these from URIs; stores, which make
    /// them per row, use ``init(entity:storeTag:primaryKey:)`` with their tag.
    public init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.init(entity: entity, storeTag: StoreTag(interning: storeIdentifier), key: .permanent(primaryKey))
    }

    /// The permanent ID of the row with primary key `primaryKey` of `entity` in the store tagged
    /// `storeTag`.
    init(entity: EntityDescription, storeTag: StoreTag, primaryKey: Int64) {
        self.init(entity: entity, storeTag: storeTag, key: .permanent(primaryKey))
    }

    init(entity: EntityDescription, storeTag: StoreTag, key: Key) {
        EntityLifetime.keepAlive(entity)
        self.entity = entity
        self.key = key
        self.storeTag = storeTag
    }

    /// Whether the object has not been saved yet (its ID will change when it is).
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The primary key in the store, for a permanent ID.
    public var primaryKey: Int64? {
        if case .permanent(let value) = key { return value }
        return nil
    }

    /// `x-objectgraph://<store-uuid>/<Entity>/p<key>` for a permanent ID;
    /// `x-objectgraph:///<Entity>/t<n>` for a temporary one (meaningful only in this process).
    public var uriRepresentation: URL {
        switch key {
        case .permanent(let value):
            return URL(string: "x-objectgraph://\(storeIdentifier ?? "")/\(Self.escape(entity.name))/p\(value)")!
        case .temporary(let value):
            return URL(string: "x-objectgraph:///\(Self.escape(entity.name))/t\(value)")!
        }
    }

    private static func escape(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
    }

    public var description: String { uriRepresentation.absoluteString }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.storeTag == rhs.storeTag && lhs.entity === rhs.entity
    }

    /// Hashes the key and the entity's identity; the store (the same for nearly every ID in a
    /// process) is left to `==`, so that hashing stays cheap on the registry and row cache
    /// lookups every object access makes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashWord)
    }

    /// Dictionaries and sets ask for this: one word, mixed cheaply (``HashMixing``). Object IDs
    /// key the registry and the row cache, hashed several times per fetched or saved object.
    public func _rawHashValue(seed: Int) -> Int {
        HashMixing.mix(hashWord, seed: seed)
    }

    /// The key mixed with the entity's address (a multiplicative mix keeps keys of different
    /// entities apart), and the key's kind in the top bit. The store is left to `==`:
    /// nearly every ID in a process has the same one.
    private var hashWord: UInt64 {
        let entityBits = UInt64(UInt(bitPattern: ObjectIdentifier(entity))) &* 0x9E37_79B9_7F4A_7C15
        switch key {
        case .permanent(let value): return UInt64(bitPattern: value) ^ entityBits
        case .temporary(let value): return value ^ entityBits ^ (1 << 63)
        }
    }

    /// Orders by store identifier, entity name, then key: a stable order for printing and
    /// batching. Identifiers are looked up only for IDs of different stores.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.storeTag != rhs.storeTag { return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "") }
        if lhs.entity === rhs.entity { return lhs.key < rhs.key }
        if lhs.entity.name != rhs.entity.name { return lhs.entity.name < rhs.entity.name }
        return lhs.key < rhs.key
    }
}

/// Keeps entities that object IDs name alive for the rest of the process (with their model), so
/// that IDs can refer to them without retaining them. Models are few and small; a program makes
/// them once.
enum EntityLifetime {
    private static let kept = Mutex<[AnyObject]>([])

    /// Makes `entity` (and its model, which holds it) live as long as the process.
    @inline(__always)
    static func keepAlive(_ entity: EntityDescription) {
        if !entity.isKeptAlive.load(ordering: .acquiring) { keep(entity) }
    }

    private static func keep(_ entity: EntityDescription) {
        kept.withLock { kept in
            guard !entity.isKeptAlive.load(ordering: .acquiring) else { return }
            // Each entity itself too: an editable model could drop one later.
            let members = entity.model?.entities ?? []
            for member in members + [entity] where !member.isKeptAlive.load(ordering: .acquiring) {
                kept.append(member)
                member.isKeptAlive.store(true, ordering: .releasing)
            }
            if let model = entity.model { kept.append(model) }
        }
    }
}
