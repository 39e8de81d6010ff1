package nsrun

import "github.com/nsrun/nsrun/internal/environ"

// SecretEnv are the names of variables that usually hold credentials; the
// agent preset removes them from the payload's environment (see
// Policy.UnsetEnv), except those SecretEnvKept names.
var SecretEnv = []string{
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*_PASS", "*_PWD", "*_KEY", "*_KEYS",
	"*API_KEY*", "*APIKEY*", "*ACCESS_KEY*", "*PRIVATE_KEY*", "*CREDENTIAL*", "*_AUTH", "*_AUTH_*",
	"*_AUTH_TOKEN", "*AUTHTOKEN*", "*JWT*", "*COOKIE*", "*SESSION_KEY*", "*DSN", "*CONNECTION_STRING*",
	"*DATABASE_URL*", "AWS_*", "AZURE_CLIENT_*", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"KRB5CCNAME", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
}

// SecretEnvKept are names SecretEnv matches that hold no secret: the AWS
// region and profile names.
var SecretEnvKept = []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"}

// MatchEnv reports whether an environment variable's name matches a
// pattern: "*" stands for any run of characters (slashes and dots
// included: npm keys its tokens by registry URL), "?" for one, anything
// else for itself, case ignored (so *TOKEN* catches npm's _authToken).
func MatchEnv(pattern, name string) bool { return environ.Match(pattern, name) }

// CheckEnvPattern refuses what cannot be a pattern for variable names.
func CheckEnvPattern(p string) error { return environ.CheckPattern(p) }

// filterEnv removes the variables whose names match an unset pattern and
// no keep pattern (a CA bundle SecretEnv guessed a secret stays), and
// returns the names it removed, sorted.
func filterEnv(env, unset, keep []string) (out, removed []string) {
	return environ.Filter(env, unset, keep, SecretEnv)
}

// HoldsNoSecret reports whether a variable's value is known to hold no
// secret whatever its name: the absolute path of a regular file of PEM
// certificates alone (a CA bundle), with no key or other block.
func HoldsNoSecret(value string) bool { return environ.HoldsNoSecret(value) }
