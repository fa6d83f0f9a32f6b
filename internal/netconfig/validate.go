package netconfig

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// MaxSVs bounds the SVs a file can ask for: each is a participant, a Scan
// and a DSO member, seeded one by one.
const MaxSVs = 64

// DefaultValidator is the name of the validator of the default network
// (its participant's name and its operator party's hint).
const DefaultValidator = "validator"

// reservedHints are party hints the seeded network already uses.
var reservedHints = []string{"DSO"}

// validate checks what decoding cannot: ranges, names, references between
// parties and users, and fields that only make sense together.
func (c *Config) validate() error {
	f := &c.File
	for _, e := range []struct {
		field string
		v     *Enum
		tag   string
	}{
		{"auth.mode", f.Auth.Mode, "hs256,jwks,none"},
		{"log.format", f.Log.Format, "text,json"},
		{"log.level", f.Log.Level, "debug,info,warn,error"},
	} {
		if e.v != nil && !slices.Contains(strings.Split(e.tag, ","), string(*e.v)) {
			return c.errorf(e.field, "%q is not one of %s", string(*e.v), strings.ReplaceAll(e.tag, ",", ", "))
		}
	}
	if p := f.Scan.SnapshotPeriod; p != nil && p.Minutes() < 1 {
		return c.errorf("scan.snapshotPeriod", "%s is shorter than the least period, 1m", p.Duration)
	}
	if l := f.HTTP.ListMaxElementsLimit; l != nil && *l <= 0 {
		return c.errorf("http.listMaxElementsLimit", "%d is not positive", *l)
	}
	if u := f.Database.URL; u != nil && *u != "" && !strings.HasPrefix(*u, "postgres://") && !strings.HasPrefix(*u, "postgresql://") {
		return c.errorf("database.url", "want a postgres:// URL")
	}
	return c.validateNetwork()
}

func (c *Config) validateNetwork() error {
	n := &c.File.Network
	if n.Seed != nil && *n.Seed == "" {
		return c.errorf("network.seed", "the seed is empty")
	}
	if n.SVs != nil && (*n.SVs < 1 || *n.SVs > MaxSVs) {
		return c.errorf("network.svs", "%d SVs: want 1 to %d", *n.SVs, MaxSVs)
	}
	if n.Clock.Start != nil && n.Clock.Offset != nil {
		return c.errorf("network.clock.offset", "give the clock a start or an offset, not both")
	}
	if o := n.Clock.Offset; o != nil && o.Duration < 0 {
		return c.errorf("network.clock.offset", "%s is negative: ledger time only moves forward", o.Duration)
	}
	aliases := map[string]bool{splice.GlobalSynchronizerAlias: true}
	for i, a := range n.Synchronizers {
		field := fmt.Sprintf("network.synchronizers[%d]", i)
		if !ledger.ValidHint(a) {
			return c.errorf(field, "%q is not a synchronizer alias: want 1 to %d printable ASCII characters without \"::\" or blanks", a, ledger.MaxHintLen)
		}
		if aliases[a] {
			return c.errorf(field, "synchronizer %q is already in the network", a)
		}
		aliases[a] = true
	}
	if n.Validators != nil && len(n.Validators) == 0 {
		return c.errorf("network.validators", "the network needs a validator: list one, or leave the key out for the default")
	}
	if len(n.Validators) > MaxValidators {
		return c.errorf(fmt.Sprintf("network.validators[%d]", MaxValidators), "sandnet seeds at most %d validators", MaxValidators)
	}
	names := map[string]bool{}
	ansNames := map[string]string{}
	onSV := map[int]string{}
	svs := 4
	if n.SVs != nil {
		svs = *n.SVs
	}
	for i := range n.Validators {
		v := &n.Validators[i]
		field := fmt.Sprintf("network.validators[%d]", i)
		if err := c.checkValidatorName(field, i, v.Name); err != nil {
			return err
		}
		if names[v.Name] {
			return c.errorf(field+".name", "validator %q is listed twice", v.Name)
		}
		names[v.Name] = true
		if v.SV != nil {
			switch k := *v.SV; {
			case k < 0 || k > svs:
				return c.errorf(field+".sv", "SV %d: the network has SVs 1 to %d (0: a participant of its own)", k, svs)
			case k > 0 && onSV[k] != "":
				return c.errorf(field+".sv", "validator %q runs on SV %d already", onSV[k], k)
			case k > 0:
				onSV[k] = v.Name
				if v.Party != nil {
					return c.errorf(field+".party", "a validator on an SV's node has the SV's party")
				}
			}
		}
		if err := c.validateValidator(field, v, ansNames); err != nil {
			return err
		}
	}
	return nil
}

// MaxValidators bounds the validators a file can list: each is a
// participant, a validator app and a store.
const MaxValidators = 32

// checkValidatorName checks the name of the i-th validator: the first
// is the default validator, served at the root of the main address.
func (c *Config) checkValidatorName(field string, i int, name string) error {
	switch {
	case name == "":
		return c.errorf(field+".name", "every validator needs a name (the first is usually %q)", DefaultValidator)
	case !splice.ValidValidatorName(name):
		return c.errorf(field+".name", "%q is not a validator name: use 1 to 40 characters among a-z, 0-9 and -, starting with a letter or digit", name)
	case svParticipant.MatchString(name):
		return c.errorf(field+".name", "%q is an SV participant's name: run the validator on that SV (sv: %s) or name it otherwise", name, name[3:])
	}
	return nil
}

// svParticipant matches the SVs' participant names.
var svParticipant = regexp.MustCompile(`^sv-[0-9]+$`)

func (c *Config) validateValidator(field string, v *Validator, ansNames map[string]string) error {
	hints := map[string]string{} // party hint → where it is declared
	for _, h := range reservedHints {
		hints[h] = "sandnet"
	}
	operator := v.Name
	if v.Party != nil {
		if !ledger.ValidHint(*v.Party) {
			return c.errorf(field+".party", "%q is not a party hint: want 1 to %d printable ASCII characters without \"::\" or blanks", *v.Party, ledger.MaxHintLen)
		}
		operator = *v.Party
	}
	hints[operator] = "sandnet"
	users := map[string]bool{splice.OperatorUser: true}
	if v.OperatorUser != nil {
		if !ledger.ValidUserID(*v.OperatorUser) {
			return c.errorf(field+".operatorUser", "%q is not a user id: use 1 to %d characters among letters, digits and %s", *v.OperatorUser, ledger.MaxUserIDLength, ledger.UserIDSymbols)
		}
		users[*v.OperatorUser] = true
	}
	for j, name := range v.OperatorWalletUsers {
		f := fmt.Sprintf("%s.operatorWalletUsers[%d]", field, j)
		if !ledger.ValidUserID(name) || users[name] {
			return c.errorf(f, "%q is not a user id, or names an operator or another user: use 1 to %d characters among letters, digits and %s", name, ledger.MaxUserIDLength, ledger.UserIDSymbols)
		}
		users[name] = true
	}
	declare := func(f, hint string) error {
		if !ledger.ValidHint(hint) {
			return c.errorf(f, "%q is not a party hint: want 1 to %d printable ASCII characters without \"::\" or blanks", hint, ledger.MaxHintLen)
		}
		if at, ok := hints[hint]; ok {
			return c.errorf(f, "party %q is already declared (by %s)", hint, at)
		}
		hints[hint] = f
		return nil
	}
	for j := range v.Users {
		u := &v.Users[j]
		uf := fmt.Sprintf("%s.users[%d]", field, j)
		if u.Name == "" {
			return c.errorf(uf+".name", "every user needs a name")
		}
		if !ledger.ValidUserID(u.Name) {
			return c.errorf(uf+".name", "%q is not a user id: use 1 to %d characters among letters, digits and %s", u.Name, ledger.MaxUserIDLength, ledger.UserIDSymbols)
		}
		if users[u.Name] {
			return c.errorf(uf+".name", "user %q is already on the validator (listed twice, or an operator user)", u.Name)
		}
		users[u.Name] = true
		if err := declare(partyField(uf, u), u.PartyHint()); err != nil {
			return err
		}
		if !u.HasWallet() {
			for _, x := range []struct {
				key string
				set bool
			}{{"balance", u.Balance != nil}, {"preapproval", u.Preapproval != nil && *u.Preapproval}, {"names", len(u.Names) > 0}} {
				if x.set {
					return c.errorf(uf+"."+x.key, "needs a wallet, and the user has none (wallet: false)")
				}
			}
		}
		names, defaultName := u.Names, u.Names == nil && u.HasWallet()
		if defaultName {
			names = []string{u.Name}
		}
		for k, name := range names {
			nf := fmt.Sprintf("%s.names[%d]", uf, k)
			full := FullAnsName(name)
			if defaultName {
				nf = uf + ".name"
			}
			if err := splice.ValidateAnsEntryRequest(AnsAcronym, full, "", ""); err != nil {
				if defaultName {
					return c.errorf(nf, "the user's default name %q is not a valid name (a-z, 0-9, - and _): give it names: [...], or names: [] for none", full)
				}
				return c.errorf(nf, "%q is not a name: want a label of a-z, 0-9, - and _ (up to %d characters), optionally followed by .unverified.%s", name, splice.MaxAnsNameLength-len(".unverified."+AnsAcronym), AnsAcronym)
			}
			if at, ok := ansNames[full]; ok {
				return c.errorf(nf, "name %q is already asked for (by %s)", full, at)
			}
			ansNames[full] = nf
		}
		if (u.Names == nil || len(u.Names) > 0) && u.HasWallet() && u.Balance != nil && u.Balance.IsZero() {
			return c.errorf(uf+".balance", "a user with names (by default, <name>.unverified.cns) pays for them from its balance: 0 cannot (names: [] asks for none)")
		}
	}
	for j, p := range v.Parties {
		pf := fmt.Sprintf("%s.parties[%d]", field, j)
		if err := declare(pf+".hint", p.Hint); err != nil {
			return err
		}
	}
	// References, once every party of the validator is declared.
	for j := range v.Users {
		u := &v.Users[j]
		uf := fmt.Sprintf("%s.users[%d]", field, j)
		ref := func(f, hint string) error {
			if at, ok := hints[hint]; !ok || at == "sandnet" {
				return c.errorf(f, "party %q is not declared on validator %q (a user's party or one of its parties)", hint, v.Name)
			}
			return nil
		}
		if u.PrimaryParty != nil {
			if err := ref(uf+".primaryParty", *u.PrimaryParty); err != nil {
				return err
			}
		}
		for k, h := range u.ActAs {
			if err := ref(fmt.Sprintf("%s.actAs[%d]", uf, k), h); err != nil {
				return err
			}
		}
		for k, h := range u.ReadAs {
			if err := ref(fmt.Sprintf("%s.readAs[%d]", uf, k), h); err != nil {
				return err
			}
		}
	}
	return nil
}

func partyField(uf string, u *User) string {
	if u.Party != nil {
		return uf + ".party"
	}
	return uf + ".name"
}

// PartyHint returns the hint of the user's own party: its party, or its
// name.
func (u *User) PartyHint() string {
	if u.Party != nil {
		return *u.Party
	}
	return u.Name
}

// HasWallet reports whether the user has a wallet (the default).
func (u *User) HasWallet() bool { return u.Wallet == nil || *u.Wallet }

// AnsAcronym is the acronym of the seeded network's name service.
const AnsAcronym = "cns"

// FullAnsName returns a name as registered: a bare label gets the
// ".unverified.cns" suffix.
func FullAnsName(name string) string {
	suffix := ".unverified." + AnsAcronym
	if strings.HasSuffix(name, suffix) {
		return name
	}
	return name + suffix
}
