package policyfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Suggested writes the options a report suggests ("--rw PATH", "--net
// host", ...) as a policy file's settings; "" when there are none.
func Suggested(options []string) (string, error) {
	var j Schema
	j.Version = 1
	for _, o := range options {
		name, value, _ := strings.Cut(strings.TrimPrefix(o, "--"), " ")
		switch name {
		case "rw", "ro":
			j.Rules = append(j.Rules, Rule{Path: value, Access: name})
		case "net":
			j.Net = value
		case "allow-userns":
			j.AllowUserns = true
		case "allow-connect":
			j.AllowConnect = appendNew(j.AllowConnect, value)
		case "allow-bind":
			j.AllowBind = appendNew(j.AllowBind, value)
		case "allow-host":
			j.AllowHosts = appendNew(j.AllowHosts, value)
		default:
			return "", fmt.Errorf("suggested option %s has no policy-file form", o)
		}
	}
	if len(options) == 0 {
		return "", nil
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
