// A stored row as the predicate evaluator and sort descriptors see it: key-value access over a
// snapshot that walks to-one relationships to the destination row and to-many ones to
// collections of rows, so `owner.name`, `ANY tags.name`, `tasks.@count` and SUBQUERY work, and
// that compares as its object ID, so `SELF == %@` and `owner IN %@` work with IDs.

/// A row of a `RowTable` seen through key-value access.
///
/// Created during one locked store call and dropped at its end: it reads the table unlocked.
final class EvaluatedRow: KeyValueCoding, EvaluationIdentity, Hashable {
    /// The row.
    let snapshot: Snapshot
    private let table: RowTable

    init(_ snapshot: Snapshot, in table: RowTable) {
        self.snapshot = snapshot
        self.table = table
    }

    /// The row's object ID.
    var objectID: ObjectID { snapshot.objectID }

    /// A row compares, in predicates, as its object ID.
    var evaluationIdentity: any OpaqueConstant { snapshot.objectID }

    /// An attribute's value; the destination row of a to-one relationship; the destination rows
    /// of a to-many one (an array when ordered, a set otherwise); `self`, `objectID` and
    /// `entity` as a managed object answers them. Nil for nil values, unknown keys and
    /// destinations no longer stored.
    func value(forKey key: String) -> Any? {
        guard let slot = snapshot.layout.index(of: key) else {
            // The keys every managed object answers besides its properties.
            switch key {
            case "self": return self
            case "objectID": return snapshot.objectID
            case "entity": return snapshot.objectID.entity
            default: return nil
            }
        }
        switch snapshot.values[slot] {
        case .null: return nil
        case .value(let value): return value
        case .object(let id): return table.row(for: id).map { EvaluatedRow($0, in: table) }
        case .objects, .unloaded:
            guard let relationship = snapshot.layout.properties[slot] as? RelationshipDescription,
                relationship.isToMany
            else { return nil }
            let rows = table.destinations(ofSlot: slot, in: snapshot).compactMap { id in
                table.row(for: id).map { EvaluatedRow($0, in: table) }
            }
            return relationship.isOrdered ? rows as Any : Set(rows) as Any
        }
    }

    static func == (lhs: EvaluatedRow, rhs: EvaluatedRow) -> Bool { lhs.objectID == rhs.objectID }

    func hash(into hasher: inout Hasher) { hasher.combine(objectID) }
}
