// Key paths checked against an entity before a predicate is evaluated on its objects: Core Data
// raises for a key the entity does not have ("If key is not a property defined by the model, the
// method raises an exception"), and the SQLite store refuses such a predicate, so evaluating one
// must not read the misspelt key as nil and match every object.
import Foundation

extension Predicate {
    /// Throws ``PredicateError`` (kind `.evaluation`) for a key path evaluated on the object
    /// that names no property of `entity` (or of its sub-entities, whose objects may have it),
    /// following relationships to their destinations. What follows an attribute (`title.length`),
    /// a collection operator (`tasks.@count`) and the keys every object answers (`self`,
    /// `objectID`, `entity`) are not checked.
    func checkKeyPaths(against entity: EntityDescription) throws {
        try forEachRootKeyPath { path in try Self.checkKeyPath(path, against: entity) }
    }

    private static func checkKeyPath(_ path: String, against root: EntityDescription) throws {
        var entity: EntityDescription? = root
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let current = entity, !component.hasPrefix("@") else { return }
            let name = String(component)
            guard let property = current.property(inSelfOrDescendantsNamed: name) else {
                // Keys every object answers, at any step that reaches an object.
                if ["self", "objectID", "entity"].contains(name) { return }
                throw PredicateError(.evaluation, "the key path \(path): \(current.name) has no property \"\(name)\"")
            }
            entity = (property as? RelationshipDescription)?.destinationEntity
        }
    }

    /// Calls `body` with each key path the predicate reads from the evaluated object (SUBQUERY
    /// and TERNARY predicates included; a variable's members are not).
    fileprivate func forEachRootKeyPath(_ body: (String) throws -> Void) throws {
        switch self {
        case .truePredicate, .falsePredicate:
            return
        case .and(let operands), .or(let operands):
            for operand in operands { try operand.forEachRootKeyPath(body) }
        case .not(let operand):
            try operand.forEachRootKeyPath(body)
        case .comparison(let comparison):
            try comparison.left.forEachRootKeyPath(body)
            try comparison.right.forEachRootKeyPath(body)
        }
    }
}

extension Expression {
    /// ``Predicate/checkKeyPaths(against:)``'s walk over an expression.
    fileprivate func forEachRootKeyPath(_ body: (String) throws -> Void) throws {
        switch self {
        case .constant, .evaluatedObject, .variable:
            return
        case .keyPath(let path), .member(.evaluatedObject, let path):
            try body(path)
        case .member(let base, _):
            try base.forEachRootKeyPath(body)
        case .dynamicMember(let a, let b), .setOperation(_, let a, let b):
            try a.forEachRootKeyPath(body)
            try b.forEachRootKeyPath(body)
        case .subscripted(let base, let position):
            try base.forEachRootKeyPath(body)
            if case .index(let index) = position { try index.forEachRootKeyPath(body) }
        case .aggregate(let elements), .function(_, let elements):
            for element in elements { try element.forEachRootKeyPath(body) }
        case .method(let receiver, _, let arguments):
            try receiver.forEachRootKeyPath(body)
            for argument in arguments { try argument.forEachRootKeyPath(body) }
        case .subquery(let collection, _, let predicate):
            try collection.forEachRootKeyPath(body)
            try predicate.forEachRootKeyPath(body)
        case .conditional(let condition, let a, let b):
            try condition.forEachRootKeyPath(body)
            try a.forEachRootKeyPath(body)
            try b.forEachRootKeyPath(body)
        }
    }
}
