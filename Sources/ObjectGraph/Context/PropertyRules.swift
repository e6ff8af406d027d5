// The model's validation rules applied to one value: required values, types, numeric ranges,
// lengths, date bounds, regular expressions, validation predicates, relationship counts.
import Foundation
import Synchronization

enum PropertyRules {
    /// Compiled regular expressions and parsed validation predicates, by their source text, so
    /// that validating many objects compiles each rule once.
    private struct Compiled: @unchecked Sendable {
        var expressions: [String: NSRegularExpression] = [:]
        var predicates: [String: Predicate] = [:]
    }
    private static let compiled = Mutex(Compiled())

    /// A model's regular expression compiled as a `MATCHES` pattern (no options): the rule
    /// checks a value as Core Data does, with `SELF MATCHES pattern` (whole string, ICU).
    static func regularExpression(_ pattern: String) -> NSRegularExpression? {
        if let known = compiled.withLock({ $0.expressions[pattern] }) { return known }
        guard let expression = try? ValueComparison.compileRegex(pattern, []) else { return nil }
        compiled.withLock { $0.expressions[pattern] = expression }
        return expression
    }

    static func predicate(_ format: String) -> Predicate? {
        if let known = compiled.withLock({ $0.predicates[format] }) { return known }
        guard let predicate = try? Predicate(format: format) else { return nil }
        compiled.withLock { $0.predicates[format] = predicate }
        return predicate
    }

    /// The first rule `value` breaks for `property` of `object`, or nil.
    static func check(_ value: Any?, for property: PropertyDescription, of object: ManagedObject) -> ValidationError.Failure? {
        let layout = object.layout
        // The slot by identity: a few pointer comparisons, cheaper than hashing the name again.
        if let slot = layout.properties.firstIndex(where: { $0 === property }), layout.validation[slot].passes(value) {
            return nil
        }
        func failure(_ rule: ValidationError.Rule, _ message: String) -> ValidationError.Failure {
            ValidationError.Failure(objectID: object.objectID, entity: object.entity.name, property: property.name,
                                    rule: rule, value: show(value), message: message)
        }
        switch property {
        case let attribute as AttributeDescription:
            guard let value = unwrapOptional(value), !(value is NSNull) else {
                if !attribute.isOptional && !attribute.isDerived { return failure(.required, "is required") }
                return nil
            }
            return checkAttribute(value, attribute, failure)
        case let relationship as RelationshipDescription:
            // Every collection setValue(_:forKey:) takes for a to-many relationship (an array
            // too, as validateValue(_:forKey:) may be handed) counts its objects.
            let count: Int
            switch unwrapOptional(value) {
            case nil: count = 0
            case let set as Set<ManagedObject>: count = set.count
            case let ordered as OrderedSet<ManagedObject>: count = ordered.count
            case let array as [ManagedObject]: count = array.count
            case is ManagedObject: count = 1
            case let other?: count = KeyValueAccess.collectionElements(other)?.count ?? 1
            }
            if count == 0 {
                return relationship.isOptional ? nil : failure(.required, relationship.isToMany ? "needs at least one object" : "is required")
            }
            if relationship.isToMany {
                if relationship.minCount > 0, count < relationship.minCount {
                    return failure(.minimumCount(relationship.minCount), "has \(count) objects, fewer than the minimum \(relationship.minCount)")
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    return failure(.maximumCount(relationship.maxCount), "has \(count) objects, more than the maximum \(relationship.maxCount)")
                }
            }
            return nil
        default:
            return nil
        }
    }

    private static func checkAttribute(_ value: Any, _ attribute: AttributeDescription,
                                       _ failure: (ValidationError.Rule, String) -> ValidationError.Failure) -> ValidationError.Failure? {
        let type = attribute.attributeType
        if type == .transformable, StorableValues.modelValue(value) == nil {
            // A value no snapshot can hold would be saved as nil.
            return failure(.type(expected: "StorableValue"), "a value of type \(Swift.type(of: value)) cannot be stored: "
                + "a transformable attribute's values adopt StorableValue (Hashable and Sendable; property-list values and collections of them do)")
        }
        if !hasType(value, type) {
            let article = "AEIOU".contains(type.xcodeName.first ?? "x") ? "an" : "a"
            return failure(.type(expected: type.xcodeName), "\(show(value)) is not \(article) \(type.xcodeName) (it is \(Swift.type(of: value)))")
        }
        if type.isNumeric, attribute.minimumValue != nil || attribute.maximumValue != nil, let number = decimal(value) {
            if let minimum = attribute.minimumValue, number < minimum {
                return failure(.minimum(minimum), "\(show(value)) is less than the minimum \(minimum)")
            }
            if let maximum = attribute.maximumValue, number > maximum {
                return failure(.maximum(maximum), "\(show(value)) is greater than the maximum \(maximum)")
            }
        }
        let hasLengthRules = (type == .string || type == .binaryData) && (attribute.minimumValue != nil || attribute.maximumValue != nil)
        let length: Int? = hasLengthRules ? ((value as? String).map { $0.utf16.count } ?? (value as? Data)?.count) : nil
        if let length {
            if let minimum = attribute.minimumValue, Decimal(length) < minimum {
                return failure(.minimumLength(NSDecimalNumber(decimal: minimum).intValue),
                               "\(show(value)) is shorter than the minimum length \(minimum)")
            }
            if let maximum = attribute.maximumValue, Decimal(length) > maximum {
                return failure(.maximumLength(NSDecimalNumber(decimal: maximum).intValue),
                               "\(show(value)) is longer than the maximum length \(maximum)")
            }
        }
        if let date = value as? Date {
            if let earliest = attribute.minimumDate, date < earliest {
                return failure(.earliest(earliest), "\(show(value)) is before \(earliest)")
            }
            if let latest = attribute.maximumDate, date > latest {
                return failure(.latest(latest), "\(show(value)) is after \(latest)")
            }
        }
        if let pattern = attribute.regularExpression, let text = value as? String {
            guard let regex = regularExpression(pattern) else {
                return failure(.pattern(pattern), "has an invalid regular expression /\(pattern)/ in the model")
            }
            if !ValueComparison.matches(text, whole: regex) {
                return failure(.pattern(pattern), "\(show(value)) does not match /\(pattern)/")
            }
        }
        for rule in attribute.validationPredicates {
            let holds = (try? predicate(rule.predicateFormat)?.evaluate(with: value)) ?? false
            if !holds {
                let warning = rule.warning.isEmpty ? "does not satisfy \(rule.predicateFormat)" : rule.warning
                return failure(.predicate(rule.predicateFormat), "\(show(value)): \(warning)")
            }
        }
        return nil
    }

    /// The Swift type that holds values of `type`; nil when values of any type are accepted.
    static func valueType(of type: AttributeType) -> (any (Hashable & Sendable).Type)? {
        switch type {
        case .undefined, .transformable, .composite: return nil
        case .integer16: return Int16.self
        case .integer32: return Int32.self
        case .integer64: return Int64.self
        case .decimal: return Decimal.self
        case .double: return Double.self
        case .float: return Float.self
        case .string: return String.self
        case .boolean: return Bool.self
        case .date: return Date.self
        case .binaryData: return Data.self
        case .uuid: return UUID.self
        case .uri: return URL.self
        case .objectID: return ObjectID.self
        }
    }

    /// Whether `value` is of the Swift type that holds values of `type`.
    static func hasType(_ value: Any, _ type: AttributeType) -> Bool {
        guard let expected = valueType(of: type) else { return true }
        func isInstance<T>(of _: T.Type) -> Bool { value is T }
        return isInstance(of: expected)
    }

    static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let v as Int16: return Decimal(Int(v))
        case let v as Int32: return Decimal(Int(v))
        case let v as Int64: return Decimal(v)
        case let v as Int: return Decimal(v)
        case let v as Decimal: return v
        case let v as Double: return Decimal(v)
        case let v as Float: return Decimal(Double(v))
        default: return nil
        }
    }

    /// A value as a person reads it in a message.
    static func show(_ value: Any?) -> String {
        switch unwrapOptional(value) {
        case nil: return "nil"
        case let text as String: return "\"\(text)\""
        case let object as ManagedObject: return "\(object.objectID)"
        case let set as Set<ManagedObject>: return "\(set.count) objects"
        case let ordered as OrderedSet<ManagedObject>: return "\(ordered.count) objects"
        case let array as [ManagedObject]: return "\(array.count) objects"
        case let data as Data: return "\(data.count) bytes"
        case let other?: return "\(other)"
        }
    }
}

/// What validating one slot's value takes, decided once per entity (``EntityLayout``), so that
/// the common value (present or absent as allowed, of its attribute's type, no other rule) passes
/// with a comparison of types instead of the casts of ``PropertyRules/check(_:for:of:)``.
struct SlotValidation {
    /// The Swift type of the attribute's values; nil when any type will do (and for
    /// relationships and fetched properties).
    let valueType: (any (Hashable & Sendable).Type)?
    /// Whether an absent value breaks a rule (a required attribute).
    let isRequired: Bool
    /// Whether a value can break a rule beyond its presence and type (ranges, lengths, dates,
    /// patterns, predicates; for relationships, being required or their counts).
    let hasRules: Bool
    /// Whether a value of any type must be checked to be storable (a transformable attribute's).
    let checksStorability: Bool

    init(_ property: PropertyDescription) {
        checksStorability = (property as? AttributeDescription)?.attributeType == .transformable
        switch property {
        case let attribute as AttributeDescription:
            valueType = PropertyRules.valueType(of: attribute.attributeType)
            isRequired = !attribute.isOptional && !attribute.isDerived
            hasRules = attribute.hasValidationRules
        case let relationship as RelationshipDescription:
            valueType = nil
            isRequired = false
            hasRules = !relationship.isOptional || (relationship.isToMany && (relationship.minCount > 0 || relationship.maxCount > 0))
        default:
            valueType = nil
            isRequired = false
            hasRules = false
        }
    }

    /// Whether `value` surely breaks no rule; false means the full check decides. Slots hold
    /// plain values or nil, so a value whose type is exactly the attribute's needs no cast;
    /// anything else (NSNull, an optional inside `Any`, a bridged type) takes the full check.
    func passes(_ value: Any?) -> Bool {
        passes(valueOfType: value.map { type(of: $0) })
    }

    /// ``passes(_:)`` for the slot value at `slot`, read in place (no copy of the value).
    func passes(at slot: UnsafePointer<Any?>) -> Bool {
        passes(valueOfType: ExactValue.dynamicType(at: slot))
    }

    /// ``passes(_:)`` for a value of dynamic type `type` (nil: no value).
    func passes(valueOfType type: Any.Type?) -> Bool {
        if hasRules { return false }
        guard let type else { return !isRequired }
        guard let valueType else { return !isRequired && !checksStorability }
        return type == valueType as Any.Type
    }
}

extension ManagedObject {
    /// Validates every property, collecting all failures: the model's rules, then the class's
    /// own validators (``PropertyValidating``), as ``validateValue(_:forKey:)`` does for one key.
    /// A validator's error of another type than ``ValidationError`` becomes a failure of its
    /// property (``ValidationError/Failure/init(_:of:property:value:)``).
    /// It does not call ``validateValue(_:forKey:)`` itself, as Core Data's validation calls
    /// `validate<Key>` methods directly; a value of its attribute's exact type with no other rule
    /// costs a type comparison.
    func validateProperties() throws {
        var failures: [ValidationError.Failure] = []
        let validating = adoptsPropertyValidating ? self as? any PropertyValidating : nil
        let missing = missingSlots ?? []
        // Without validators, most values pass by their type alone: checked in place first (no
        // copy of each value), so that only the others take the full check below.
        if validating == nil && missing.isEmpty && passesByType() { return }
        // Slot kinds from the layout: no casts of property descriptions per slot.
        for index in layout.kinds.indices {
            let isAttribute: Bool
            switch layout.kinds[index] {
            case .fetched: continue
            case .attribute: isAttribute = true
            case .toOne: isAttribute = false
            case .toMany:
                // An unloaded to-many relationship was valid when stored and has not changed.
                if slots[index] == nil || slots[index] is PendingToMany { continue }
                isAttribute = false
            }
            // Values a partial fetch left out were valid when stored and have not changed.
            if missing.contains(index) { continue }
            // Relationships pass by their rules alone; an attribute slot holds its public value.
            if validating == nil && layout.validation[index].passes(slots[index]) { continue }
            let property = layout.properties[index]
            var value = isAttribute ? slots[index] : publicValue(ofSlot: index)
            if let failure = PropertyRules.check(value, for: property, of: self) {
                failures.append(failure)
                continue
            }
            let checked = value
            do {
                try validating?.runValidator(forKey: property.name, value: &value)
            } catch let error as ValidationError {
                failures += error.failures
            } catch {
                // An error of the validator's own type is one more failure: the object's other
                // properties are still checked, and every failure is reported together.
                failures.append(ValidationError.Failure(error, of: self, property: property.name, value: PropertyRules.show(checked)))
            }
        }
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }

    /// Whether every slot passes its rules by its value's type alone (``SlotValidation/passes(_:)``),
    /// unloaded to-many relationships passing as they are.
    private func passesByType() -> Bool {
        if !rowValues.isEmpty { return rowPassesByType() }
        let slots = self.slots
        return slots.withUnsafeBufferPointer { values in
            for index in values.indices {
                switch layout.kinds[index] {
                case .fetched: continue
                case .toMany where ExactValue.dynamicType(at: values.baseAddress! + index).map({ $0 == PendingToMany.self }) ?? true:
                    continue
                default: if !layout.validation[index].passes(at: values.baseAddress! + index) { return false }
                }
            }
            return true
        }
    }

    /// ``passesByType()`` for an object reading its row (`rowValues`), without unpacking it.
    private func rowPassesByType() -> Bool {
        rowValues.withUnsafeBufferPointer { row in
            for index in row.indices {
                switch layout.kinds[index] {
                case .fetched: continue
                case .toMany:
                    switch row[index] {
                    case .unloaded, .objects: continue  // a fault, or stored destinations (a pending fault)
                    default: return false
                    }
                default:
                    // A value's type is read where the row holds it, without copying the value.
                    if let type = ExactValue.storedType(at: row.baseAddress.unsafelyUnwrapped + index, tag: layout.valueCaseTag) {
                        if !layout.validation[index].passes(valueOfType: type) { return false }
                        continue
                    }
                    switch row[index] {
                    case .value(let value): if !layout.validation[index].passes(valueOfType: type(of: value)) { return false }
                    case .null, .unloaded: if !layout.validation[index].passes(valueOfType: nil) { return false }
                    case .object: if !layout.validation[index].passes(valueOfType: ObjectID.self) { return false }
                    case .objects: return false
                    }
                }
            }
            return true
        }
    }

    /// Whether the object's class adopts `PropertyValidating`, asked of the runtime once per class
    /// and entity (the layout remembers the last class).
    private var adoptsPropertyValidating: Bool {
        let key = UInt(bitPattern: ObjectIdentifier(type(of: self)))
        let cached = layout.validatingClass.load(ordering: .relaxed)
        if cached & ~1 == key { return cached & 1 == 1 }
        let adopts = self is any PropertyValidating
        layout.validatingClass.store(key | (adopts ? 1 : 0), ordering: .relaxed)
        return adopts
    }

    /// Checks deny delete rules: a relationship with the deny rule must be empty.
    func validateDeleteRules() throws {
        var failures: [ValidationError.Failure] = []
        for index in layout.relationshipIndexes {
            let relationship = layout.properties[index] as! RelationshipDescription
            guard relationship.deleteRule == .deny else { continue }
            let destinations = relationship.isToMany ? toManyStorage(atSlot: index).objects.elements
                : toOneObject(atSlot: index).map { [$0] } ?? []
            let remaining = destinations.filter { !$0.isDeleted }
            guard !remaining.isEmpty else { continue }
            let names = remaining.map { "\($0.objectID)" }.joined(separator: ", ")
            failures.append(ValidationError.Failure(objectID: objectID, entity: entity.name, property: relationship.name,
                                                    rule: .deny, value: "\(remaining.count) objects",
                                                    message: "cannot be deleted while \(relationship.name) holds \(names) (deny rule)"))
        }
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }
}
