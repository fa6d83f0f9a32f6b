package ledger

// ForgetPrepared drops the interpretations n keeps from its preparations,
// as a restart or another process would not have them: the next
// execution re-interprets.
func ForgetPrepared(n *Network) {
	n.preparedTxs.mu.Lock()
	defer n.preparedTxs.mu.Unlock()
	clear(n.preparedTxs.byKey)
	n.preparedTxs.order = nil
}
