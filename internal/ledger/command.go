package ledger

import (
	"errors"
	"reflect"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// The value-level command layer: the ledger API's commands, which name
// templates, interfaces and choices by id and carry Daml values. They run
// inside the same Tx as Go commands (Create, Exercise), so a command from
// HTTP and one built in Go share Submit, interpretation, authorization
// and commit. The layer sees packages only through their descriptions
// (TemplateType, ChoiceType, InterfaceType).

// APICommand is one command of a ledger API submission (Canton's Command
// one-of): exactly one field is set.
type APICommand struct {
	Create            *CreateCommand
	Exercise          *ExerciseCommand
	CreateAndExercise *CreateAndExerciseCommand
	ExerciseByKey     *ExerciseByKeyCommand
}

// CreateCommand creates a contract of Template (package-id or package-name
// form) with payload Argument, a record of the template's payload type.
type CreateCommand struct {
	Template daml.Identifier
	Argument daml.Value
}

// ExerciseCommand exercises Choice on ContractID with Argument. Template
// names the contract's template, or an interface it implements, in either
// form.
type ExerciseCommand struct {
	Template   daml.Identifier
	ContractID daml.ContractID
	Choice     string
	Argument   daml.Value
}

// CreateAndExerciseCommand creates a contract and exercises a choice of
// the template on it in one command.
type CreateAndExerciseCommand struct {
	Template       daml.Identifier
	CreateArgument daml.Value
	Choice         string
	ChoiceArgument daml.Value
}

// ExerciseByKeyCommand exercises a choice on the contract of Template with
// key ContractKey. No built-in template has a key, so it fails at
// resolution, as on Canton for a template without one.
type ExerciseByKeyCommand struct {
	Template       daml.Identifier
	ContractKey    daml.Value
	Choice         string
	ChoiceArgument daml.Value
}

// RunCommands returns a Command.Run that interprets cmds in order in one
// transaction, so that a ledger API submission is a Command like any
// other. Each command's results are values; the caller reads them from
// the committed transaction.
func RunCommands(cmds []APICommand) func(*Tx) error {
	return func(tx *Tx) error {
		for i := range cmds {
			if err := tx.RunCommand(cmds[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// RunCommand interprets one ledger API command in tx.
func (tx *Tx) RunCommand(c APICommand) error {
	set := 0
	for _, p := range []bool{c.Create != nil, c.Exercise != nil, c.CreateAndExercise != nil, c.ExerciseByKey != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return fault.WithCode(fault.InvalidArgument, CodeInvalidArgument,
			"%sa command must be exactly one of create, exercise, createAndExercise and exerciseByKey", invalidArgumentPrefix)
	}
	switch {
	case c.Create != nil:
		_, err := tx.CreateValue(c.Create.Template, c.Create.Argument)
		return err
	case c.Exercise != nil:
		x := c.Exercise
		_, err := tx.ExerciseValue(x.Template, x.ContractID, x.Choice, x.Argument)
		return err
	case c.CreateAndExercise != nil:
		x := c.CreateAndExercise
		// Canton checks the choice before it creates anything.
		if _, err := tx.net.registry.ResolveChoice(x.Template, x.Choice); err != nil {
			return err
		}
		cid, err := tx.CreateValue(x.Template, x.CreateArgument)
		if err != nil {
			return err
		}
		_, err = tx.ExerciseValue(x.Template, cid, x.Choice, x.ChoiceArgument)
		return err
	default:
		_, err := tx.net.registry.ResolveKey(c.ExerciseByKey.Template)
		if err != nil {
			return err
		}
		// Unreachable while no template has a key.
		return fault.New(fault.Internal, "exercise by key is not implemented")
	}
}

// CreateValue creates a contract of the template ref names (package-id or
// package-name form) with payload arg, which must be a record of the
// template's payload type, and returns its id. It is Create for callers
// that hold values rather than Go templates: the same checks (ensure,
// the signatories' authority) apply.
func (tx *Tx) CreateValue(ref daml.Identifier, arg daml.Value) (daml.ContractID, error) {
	t, err := tx.net.registry.ResolveTemplate(ref)
	if err != nil {
		return "", err
	}
	if err := checkArgument(arg, t.Payload); err != nil {
		return "", err
	}
	rec, ok := arg.(*daml.Record)
	if !ok || rec == nil {
		return "", preprocessing("expected a record for the payload of %s", t.ID.Identifier)
	}
	info := tx.net.registry.templates[t.ID.Identifier]
	goValue, err := info.decode(rec)
	if err != nil {
		return "", preprocessing("%v", err)
	}
	return tx.create(goValue)
}

// ExerciseValue exercises choice on contract cid with argument arg, a
// value of the choice's argument type, and returns the choice's result.
// ref names the contract's template or an interface it implements
// (package-id or package-name form); through an interface the contract's
// template runs its own choice of that name, and the exercise records the
// interface. Authorization and visibility are those of Exercise.
func (tx *Tx) ExerciseValue(ref daml.Identifier, cid daml.ContractID, choice string, arg daml.Value) (daml.Value, error) {
	rc, err := tx.net.registry.ResolveChoice(ref, choice)
	if err != nil {
		return nil, err
	}
	if err := checkArgument(arg, rc.Choice.Argument); err != nil {
		return nil, err
	}
	c, err := tx.contract(cid)
	if err != nil {
		return nil, err
	}
	var iface *daml.Identifier
	if rc.Interface != nil {
		id := rc.Interface.ID
		iface = &id
		if !slices.Contains(tx.net.registry.Interfaces(c.Template.Identifier), id) {
			return nil, fault.WithCode(fault.DamlPrecondition, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE",
				"Interpretation error: Error: Update failed due to contract %s not implementing an interface %s (its template is %s)",
				cid, id, c.Template.Identifier)
		}
	} else if c.Template.Identifier != rc.Template.ID.Identifier {
		return nil, fault.WithCode(fault.DamlPrecondition, "WRONGLY_TYPED_CONTRACT",
			"Contract %s has template %s, not %s", cid, c.Template.Identifier, rc.Template.ID.Identifier)
	}
	info := tx.net.registry.templates[c.Template.Identifier]
	if info == nil {
		return nil, templatesNotFound(c.Template.Identifier)
	}
	ch := info.choices[choice]
	if ch == nil {
		return nil, invalidChoice(c.Template.Identifier, choice)
	}
	goArg := reflect.New(ch.argType)
	if err := daml.ToGo(arg, goArg.Interface()); err != nil {
		return nil, preprocessing("%v", err)
	}
	res, err := tx.exerciseOn(c, iface, choice, goArg.Elem().Interface())
	if err != nil {
		return nil, err
	}
	out, err := daml.FromGo(res)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode result of %s", choice)
	}
	return out, nil
}

// checkArgument checks a command's value against its type.
func checkArgument(v daml.Value, t *daml.Type) error {
	if err := daml.Validate(v, t); err != nil {
		return ArgumentError(err)
	}
	return nil
}

func preprocessing(format string, args ...any) error {
	return fault.WithCode(fault.InvalidArgument, CodePreprocessingFailed, format, args...)
}

// ArgumentError turns an error decoding or checking a command argument
// (a *daml.Error from daml.LedgerJSONStrict or daml.Validate) into the
// fault Canton's JSON Ledger API answers with: unexpected record fields
// are INVALID_ARGUMENT ("Unexpected fields: a, b"), anything else
// (missing non-Optional fields, a value of the wrong shape) is
// COMMAND_PREPROCESSING_FAILED. Both are fault.InvalidArgument (HTTP
// 400). The message names the offending field's path unless it is the
// argument itself. Both are clipped: the field names and paths are the
// client's. Other errors are returned unchanged.
func ArgumentError(err error) error {
	var de *daml.Error
	if !errors.As(err, &de) {
		return err
	}
	msg := fault.Clip(de.Msg)
	if de.Path != "$" && de.Path != "" {
		msg += " (at " + fault.Clip(de.Path) + ")"
	}
	if de.Kind == daml.ErrUnexpectedFields {
		return &fault.Error{Kind: fault.InvalidArgument, Code: CodeInvalidArgument, Message: invalidArgumentPrefix + msg, Err: err}
	}
	return &fault.Error{Kind: fault.InvalidArgument, Code: CodePreprocessingFailed, Message: msg, Err: err}
}
