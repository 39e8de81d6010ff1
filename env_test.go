package nsrun

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMatchEnv(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*TOKEN*", "GITHUB_TOKEN", true}, {"*TOKEN*", "npm_config_//registry.npmjs.org/:_authToken", true},
		{"*TOKEN*", "PATH", false}, {"AWS_*", "AWS_SECRET_ACCESS_KEY", true}, {"AWS_*", "XAWS_A", false},
		{"*_KEY", "OPENAI_API_KEY", true}, {"*_KEY", "KEYBOARD", false}, {"*_KEY", "MY_KEY_FILE", false},
		{"?AT", "PAT", true}, {"?AT", "PATH", false}, {"HOME", "home", true}, {"*", "", true}, {"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYcZ", false}, {"**x", "x", true},
	} {
		if got := MatchEnv(tc.pattern, tc.name); got != tc.want {
			t.Errorf("MatchEnv(%q, %q) = %v", tc.pattern, tc.name, got)
		}
	}
}

// The secret patterns catch what the issue names and keep what an ordinary
// program needs.
func TestSecretEnv(t *testing.T) {
	env := []string{"GITHUB_TOKEN=1", "AWS_SECRET_ACCESS_KEY=1", "AWS_ACCESS_KEY_ID=1", "AWS_REGION=eu", "AWS_PROFILE=p",
		"OPENAI_API_KEY=1", "ANTHROPIC_API_KEY=1", "NPM_TOKEN=1", "SSH_AUTH_SOCK=/run/x", "GPG_AGENT_INFO=1", "KRB5CCNAME=1",
		"DB_PASSWORD=1", "MYSQL_PWD=1", "X_PASSWD=1", "GOOGLE_APPLICATION_CREDENTIALS=/k", "NODE_AUTH_TOKEN=1", "NPM_CONFIG__AUTH=1",
		"npm_config_//r.example/:_authToken=1", "CI_JOB_JWT=1", "SENTRY_DSN=1", "DATABASE_URL=postgres://u:p@h/d",
		"PATH=/bin", "HOME=/h", "LANG=C", "TERM=xterm", "GOPATH=/g", "PWD=/w", "OLDPWD=/v", "USER=me", "SHELL=/bin/sh", "EDITOR=vi"}
	out, removed := filterEnv(env, SecretEnv, SecretEnvKept)
	want := []string{"AWS_REGION=eu", "AWS_PROFILE=p", "PATH=/bin", "HOME=/h", "LANG=C", "TERM=xterm", "GOPATH=/g", "PWD=/w",
		"OLDPWD=/v", "USER=me", "SHELL=/bin/sh", "EDITOR=vi"}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("kept %q\nwant %q", out, want)
	}
	wantRemoved := []string{"ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "CI_JOB_JWT", "DATABASE_URL",
		"DB_PASSWORD", "GITHUB_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS", "GPG_AGENT_INFO", "KRB5CCNAME", "MYSQL_PWD",
		"NODE_AUTH_TOKEN", "NPM_CONFIG__AUTH", "NPM_TOKEN", "OPENAI_API_KEY", "SENTRY_DSN", "SSH_AUTH_SOCK", "X_PASSWD",
		"npm_config_//r.example/:_authToken"}
	if !reflect.DeepEqual(removed, wantRemoved) {
		t.Errorf("removed %q\nwant %q", removed, wantRemoved)
	}
}

// TestSecretEnvKeepsCertificatePaths: a variable a secret pattern matches
// stays when it names a file of certificates alone; one an explicit
// pattern (not SecretEnv's) matches goes all the same.
func TestSecretEnvKeepsCertificatePaths(t *testing.T) {
	dir := t.TempDir()
	cert := "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUfake\n-----END CERTIFICATE-----\n"
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bundle := write("ca.pem", "# Issuer: a\n"+cert+"# Issuer: b\n"+cert)
	withKey := write("both.pem", cert+"-----BEGIN PRIVATE KEY-----\nMIIEfake\n-----END PRIVATE KEY-----\n")
	token := write("token", "eyJhbGciOi.fake.token\n")
	env := []string{"AWS_CA_BUNDLE=" + bundle, "AWS_KEY_PEM=" + withKey, "AWS_WEB_IDENTITY_TOKEN_FILE=" + token,
		"AWS_SECRET_ACCESS_KEY=1", "AWS_X=relative/ca.pem", "AWS_DIR=" + dir}
	out, removed := filterEnv(env, SecretEnv, SecretEnvKept)
	if want := []string{"AWS_CA_BUNDLE=" + bundle}; !reflect.DeepEqual(out, want) {
		t.Errorf("kept %q\nwant %q", out, want)
	}
	if want := []string{"AWS_DIR", "AWS_KEY_PEM", "AWS_SECRET_ACCESS_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_X"}; !reflect.DeepEqual(removed, want) {
		t.Errorf("removed %q\nwant %q", removed, want)
	}
	if out, _ := filterEnv(env[:1], []string{"AWS_CA_BUNDLE"}, nil); len(out) != 0 {
		t.Errorf("an explicit pattern left %q", out)
	}
}
