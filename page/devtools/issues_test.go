package devtools

import (
	"slices"
	"testing"
)

func TestCorsIssueKind(t *testing.T) {
	tests := []struct {
		corsError, want string
	}{
		{"PreflightMissingAllowOriginHeader", "InvalidHeaders"},
		{"InvalidAllowHeadersPreflightResponse", "InvalidHeaders"},
		{"MultipleAllowOriginValues", "InvalidHeaders"},
		{"WildcardOriginNotAllowed", "WildcardOriginWithCredentials"},
		{"PreflightInvalidStatus", "PreflightResponseInvalid"},
		{"InvalidResponse", "PreflightResponseInvalid"},
		{"AllowOriginMismatch", "OriginMismatch"},
		{"PreflightInvalidAllowCredentials", "AllowCredentialsRequired"},
		{"DisallowedByMode", "DisallowedByMode"}, // a kind of its own
	}
	for _, tt := range tests {
		t.Run(tt.corsError, func(t *testing.T) {
			if got := corsIssueKind(tt.corsError); got != tt.want {
				t.Errorf("corsIssueKind(%q) = %q, want %q", tt.corsError, got, tt.want)
			}
		})
	}
}

func TestCookieIssueCodes(t *testing.T) {
	tests := []struct {
		name                 string
		exclusions, warnings []string
		operation            string
		want                 []string
	}{
		{"a same-site exclusion DevTools hides", []string{"ExcludeSameSiteStrict"}, nil, "ReadCookie", nil},
		{"unspecified same-site treated as lax", []string{"ExcludeSameSiteUnspecifiedTreatedAsLax"}, nil, "ReadCookie",
			[]string{"CookieIssue::ExcludeSameSiteUnspecifiedTreatedAsLax::ReadCookie"}},
		{"a redirect downgrade", []string{"ExcludeSameSiteLax"}, []string{"WarnCrossSiteRedirectDowngradeChangesInclusion"}, "SetCookie",
			[]string{"CookieIssue::CrossSiteRedirectDowngradeChangesInclusion"}},
		{"port and scheme mismatches have no operation", []string{"ExcludePortMismatch", "ExcludeSchemeMismatch"}, nil, "ReadCookie",
			[]string{"CookieIssue::ExcludePortMismatch", "CookieIssue::ExcludeSchemeMismatch"}},
		{"third-party phase-out hidden", []string{"ExcludeThirdPartyPhaseout"}, []string{"WarnThirdPartyPhaseout"}, "ReadCookie", nil},
		{"another exclusion, warnings ignored", []string{"ExcludeInvalidSameParty"}, []string{"WarnSameSiteNoneInsecure"}, "SetCookie",
			[]string{"CookieIssue::ExcludeInvalidSameParty::SetCookie"}},
		{"warnings without exclusions", nil, []string{"WarnSameSiteNoneInsecure", "WarnThirdPartyPhaseout"}, "SetCookie",
			[]string{"CookieIssue::WarnSameSiteNoneInsecure::SetCookie"}},
		{"nothing", nil, nil, "ReadCookie", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cookieIssueCodes(tt.exclusions, tt.warnings, tt.operation); !slices.Equal(got, tt.want) {
				t.Errorf("cookieIssueCodes(%q, %q, %q) = %q, want %q", tt.exclusions, tt.warnings, tt.operation, got, tt.want)
			}
		})
	}
}
