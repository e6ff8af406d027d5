// The error of a failed validation: every failure of a save in one error, each naming the
// object, the property, the rule it broke and the value that broke it.
import Foundation

/// Why objects are not valid: all failures found, together. An error of another type thrown by
/// an object's own validation code is one failure among the others
/// (``Failure/init(_:of:property:value:)``).
///
/// ```swift
/// do { try context.save() } catch let error as ValidationError {
///     for failure in error.failures { print(failure) }
///     // Person.email (x-objectgraph://.../Person/p3): "bob@" does not match /^[^@]+@[^@]+$/
/// }
/// ```
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// A rule a value can break.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        case required
        case type(expected: String)
        case minimum(Decimal)
        case maximum(Decimal)
        case minimumLength(Int)
        case maximumLength(Int)
        case earliest(Date)
        case latest(Date)
        case pattern(String)
        case predicate(String)
        case minimumCount(Int)
        case maximumCount(Int)
        /// A deny delete rule: the relationship still holds objects.
        case deny
        /// The relationship holds an object that will have no row after the save: a new object
        /// the save will not insert (its insertion was undone, or it was deleted), an object
        /// deleted in the context, or an inaccessible fault (its row deleted elsewhere). Core
        /// Data's "dangling reference to an invalid object".
        case danglingReference
        /// A rule of the object's own validation code.
        case custom(String)

        public var description: String {
            switch self {
            case .required: return "required"
            case .type(let expected): return "type \(expected)"
            case .minimum(let value): return "minimum \(value)"
            case .maximum(let value): return "maximum \(value)"
            case .minimumLength(let value): return "minimum length \(value)"
            case .maximumLength(let value): return "maximum length \(value)"
            case .earliest(let date): return "earliest \(date)"
            case .latest(let date): return "latest \(date)"
            case .pattern(let pattern): return "pattern /\(pattern)/"
            case .predicate(let format): return "predicate \(format)"
            case .minimumCount(let count): return "at least \(count) objects"
            case .maximumCount(let count): return "at most \(count) objects"
            case .deny: return "deny delete rule"
            case .danglingReference: return "dangling reference"
            case .custom(let name): return name
            }
        }
    }

    /// One broken rule.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The object; nil when the failure was raised outside a save.
        public var objectID: ObjectID?
        public var entity: String
        /// The property; nil for a rule of the whole object.
        public var property: String?
        public var rule: Rule
        /// The offending value, as a person reads it (`"bob@"`, `nil`, `3 objects`).
        public var value: String
        /// What is wrong, in a sentence.
        public var message: String

        public init(objectID: ObjectID?, entity: String, property: String?, rule: Rule, value: String, message: String) {
            self.objectID = objectID
            self.entity = entity
            self.property = property
            self.rule = rule
            self.value = value
            self.message = message
        }

        /// The failure of `object` that `error`, an error of another type than ValidationError
        /// thrown by the object's own validation code (a validator, an override of
        /// validateForInsert()...), stands for, so that it is reported with the other failures
        /// of the save instead of hiding them. Its rule is ``Rule/custom(_:)`` named after the
        /// error's type (`"ReviewNoteError"`), its message the error's description. The error
        /// itself is not kept: a failure is a plain value (Sendable, Hashable), and any error
        /// need not be; its domain and code are (``underlyingDomain``), for the NSError form.
        public init(_ error: any Error, of object: ManagedObject, property: String?, value: String = "") {
            self.init(objectID: object.objectID, entity: object.entity.name, property: property,
                      rule: .custom("\(type(of: error))"), value: value, message: "\(error)")
            let bridged = error as NSError
            underlyingDomain = bridged.domain
            underlyingCode = bridged.code
        }

        /// For a failure of an error the object's own validation code threw: that error's domain
        /// and code (as `error as NSError` gives them). The NSError form of a validation error
        /// carries it under `NSUnderlyingErrorKey`, and lists it as itself among several.
        public var underlyingDomain: String?
        public var underlyingCode: Int?

        /// `Entity.property (object URI): message`.
        public var description: String {
            let name = property.map { "\(entity).\($0)" } ?? entity
            let object = objectID.map { " (\($0))" } ?? ""
            return "\(name)\(object): \(message)"
        }
    }

    public var failures: [Failure]

    public init(failures: [Failure]) { self.failures = failures }

    /// A failure of an object's own validation code, for `validate…` methods to throw.
    public init(object: ManagedObject, property: String?, message: String) {
        failures = [Failure(objectID: object.objectID, entity: object.entity.name, property: property,
                            rule: .custom("custom"), value: "", message: message)]
    }

    public var description: String {
        if failures.count == 1 { return "validation failed: \(failures[0])" }
        return "validation failed (\(failures.count) problems):\n" + failures.map { "  \($0)" }.joined(separator: "\n")
    }
}
