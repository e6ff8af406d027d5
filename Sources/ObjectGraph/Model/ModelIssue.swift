// A problem found in a model: what is wrong, how bad it is, and where: the file and line, the
// entity and the property. Reading and validating a model collect every issue of a file at once.

/// One problem of a model, with the place a person has to edit to fix it.
///
/// Printed as `path:line: error: Person.tasks: destination entity "Tsk" does not exist`.
public struct ModelIssue: Sendable, Hashable, CustomStringConvertible {
    /// Errors make a model unusable; warnings are read past (a default value read as 0, say).
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    /// What kind of problem it is, for code that reacts to one kind.
    public enum Kind: String, Sendable, Hashable {
        case malformedXML
        case missingElement
        case invalidValue
        case duplicateEntity
        case duplicateProperty
        case redeclaredInheritedProperty
        case unknownParentEntity
        case inheritanceCycle
        case unknownDestinationEntity
        case unknownInverse
        case missingInverse
        case inverseMismatch
        case unknownAttributeType
        case missingAttributeType
        case unknownComposite
        case unknownEntityReference
        case unknownPropertyReference
        case invalidCount
        /// A predicate (of a fetch request template, a fetched property or a validation rule)
        /// that does not parse.
        case invalidPredicate
        /// A derived attribute whose derivation expression the stores do not compute.
        case unsupportedDerivation
        /// Two fetch request templates, configurations, fetch indexes or composite types of one
        /// name.
        case duplicateName
        /// A uniqueness constraint naming a property with no stored value to compare: a to-many
        /// relationship, a fetched property or a transient one.
        case unsupportedConstraint
        /// The file is XML, but not a model (its root element is not `<model>`).
        case notAModel
    }

    public var severity: Severity
    public var kind: Kind
    /// What is wrong, in a sentence that names the offending value.
    public var message: String
    /// The file and line, when the model came from a file.
    public var location: ModelSourceLocation?
    /// The entity concerned, if any.
    public var entity: String?
    /// The property concerned, if any.
    public var property: String?

    public init(_ severity: Severity, _ kind: Kind, _ message: String, location: ModelSourceLocation? = nil,
                entity: String? = nil, property: String? = nil) {
        self.severity = severity
        self.kind = kind
        self.message = message
        self.location = location
        self.entity = entity
        self.property = property
    }

    /// `file:line: severity: Entity.property: message`, leaving out what is unknown, on one line:
    /// a line break in a value the message quotes is shown as `\n` or `\r`, so that each issue
    /// is one line of a tool's output.
    public var description: String {
        // Names come from the file too: an entity named across lines must not split the line.
        func oneLine(_ value: String) -> String {
            var text = ""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text
        }
        var text = ""
        if let location { text += "\(location): " }
        text += "\(severity.rawValue): "
        switch (entity, property) {
        case let (entity?, property?): text += "\(oneLine(entity)).\(oneLine(property)): "
        case let (entity?, nil): text += "\(oneLine(entity)): "
        case let (nil, property?): text += "\(oneLine(property)): "
        case (nil, nil): break
        }
        return text + oneLine(message)
    }
}
