package main

import (
	"strings"

	"github.com/nsrun/nsrun"
)

// envOp is one edit of the payload's environment, applied in order:
// the preset's, then the policy file's, then the flags' in command-line
// order.
type envOp struct {
	kind       envKind
	key, value string // key is a pattern for unset and keep
	// guess marks a preset's unset pattern, a guess from names: a value
	// that holds no secret (nsrun.HoldsNoSecret) stays.
	guess bool
}

type envKind int

const (
	envSet   envKind = iota // --env K=V
	envUnset                // --unset-env PATTERN: remove what matches
	envKeep                 // --keep-env PATTERN: take back the caller's value of what matches
	envClear                // --clear-env: remove everything so far
)

// environment applies ops in order to the caller's environment. It
// returns the environment to hand the library and the policy's patterns
// that make it the one the ops ask for: every name of the caller's that
// the ops took away is removed (and reported) by the library, and every
// name the ops set or kept is left alone by it (a preset's home does not
// replace an --env HOME=...).
func environment(caller []string, ops []envOp) (env, unset, keep []string) {
	orig := map[string]string{}
	var order []string
	for _, kv := range caller {
		k, v, _ := splitEnv(kv)
		if _, seen := orig[k]; !seen {
			order = append(order, k)
		}
		orig[k] = v
	}
	cur := map[string]string{}
	for k, v := range orig {
		cur[k] = v
	}
	explicit := map[string]bool{}
	add := func(k string) {
		if _, seen := orig[k]; !seen {
			order = append(order, k)
			orig[k] = ""
		}
	}
	for _, op := range ops {
		switch op.kind {
		case envClear:
			cur, explicit = map[string]string{}, map[string]bool{}
		case envSet:
			add(op.key)
			cur[op.key], explicit[op.key] = op.value, true
		case envUnset:
			for k, v := range cur {
				if nsrun.MatchEnv(op.key, k) && !(op.guess && nsrun.HoldsNoSecret(v)) {
					delete(cur, k)
					delete(explicit, k)
				}
			}
		case envKeep:
			for _, kv := range caller {
				if k, v, _ := splitEnv(kv); nsrun.MatchEnv(op.key, k) {
					cur[k], explicit[k] = v, true
				}
			}
		}
	}
	callerHas := map[string]bool{}
	for _, kv := range caller {
		k, _, _ := splitEnv(kv)
		callerHas[k] = true
	}
	for _, k := range order {
		if v, ok := cur[k]; ok {
			env = append(env, k+"="+v)
			if explicit[k] {
				keep = append(keep, k)
			}
			continue
		}
		if callerHas[k] {
			// Handed over to be removed by the library, which reports it.
			env = append(env, k+"="+orig[k])
			unset = append(unset, k)
		}
	}
	return env, unset, keep
}

// envOps turns a policy's patterns into ops: what they remove first, then
// what they let through.
func envOps(p *nsrun.Policy) []envOp {
	var ops []envOp
	for _, u := range p.UnsetEnv {
		ops = append(ops, envOp{kind: envUnset, key: u})
	}
	for _, k := range p.KeepEnv {
		ops = append(ops, envOp{kind: envKeep, key: k})
	}
	return ops
}

func splitEnv(kv string) (string, string, bool) {
	// A leading '=' belongs to the name (Windows-style "=C:" entries).
	for i := 1; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// literal makes a name a pattern that matches only itself, as far as
// names go (no variable name holds * or ?).
func literal(name string) string {
	if strings.ContainsAny(name, "*?") {
		return ""
	}
	return name
}
