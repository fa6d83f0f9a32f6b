package signing

type Usage int

const UsageProtocol Usage = 4

type PublicKey struct {
	Spec  int
	SPKI  []byte
	Usage []Usage
}

func (k PublicKey) Fingerprint() string                   { return "" }
func (k PublicKey) Verify(sig Signature, msg []byte) error { return nil }

type Signature struct {
	Format    int
	Bytes     []byte
	SignedBy  string
	Algorithm int
}
