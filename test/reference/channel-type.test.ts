import { describe, expect, it } from "vitest";
import { cutToFirstSignificantSubdomain, initialChannelType, sessionChannelType, type Attribution } from "../../src/core/channel-rules.ts";

/**
 * Ported from PostHog/posthog posthog/hogql/database/schema/test/test_channel_type.py (TestChannelType): each case
 * names the test it comes from; the expected channel is that test's. Custom channel rules (test_custom_channel_type)
 * are not modelled.
 */

type PersonCase = [test: string, properties: Record<string, unknown>, want: string];

const personCases: PersonCase[] = [
  ["test_direct", { $initial_referring_domain: "$direct" }, "Direct"],
  ["test_direct_empty_string", { $initial_referring_domain: "$direct", $initial_utm_source: "", $initial_utm_medium: "", $initial_utm_campaign: "", $initial_gclid: "", $initial_gad_source: "" }, "Direct"],
  ["test_direct_null_string", { $initial_referring_domain: "$direct", $initial_utm_source: "null", $initial_utm_medium: "null", $initial_utm_campaign: "null", $initial_gclid: "null", $initial_gad_source: "null" }, "Direct"],
  ["test_cross_network", { $initial_referring_domain: "$direct", $initial_utm_campaign: "cross-network" }, "Cross Network"],
  ["test_paid_shopping_domain", { $initial_referring_domain: "www.ebay.co.uk", $initial_utm_medium: "ppc" }, "Paid Shopping"],
  ["test_paid_shopping_source", { $initial_utm_source: "ebay", $initial_utm_medium: "ppc" }, "Paid Shopping"],
  ["test_paid_shopping_campaign", { $initial_utm_campaign: "shopping", $initial_utm_medium: "ppc" }, "Paid Shopping"],
  ["test_paid_search", { $initial_referring_domain: "www.google.co.uk", $initial_gclid: "some-gclid" }, "Paid Search"],
  ["test_paid_search_source", { $initial_utm_source: "yahoo", $initial_utm_medium: "ppc" }, "Paid Search"],
  ["test_paid_video", { $initial_referring_domain: "youtube.com", $initial_utm_medium: "cpc" }, "Paid Video"],
  ["test_paid_video_source", { $initial_utm_source: "youtube.com", $initial_utm_medium: "cpc" }, "Paid Video"],
  ["test_organic_video", { $initial_referring_domain: "youtube.com" }, "Organic Video"],
  ["test_direct_with_red_herring_utm_tags_is_direct", { $initial_referring_domain: "$direct", $initial_utm_source: "what", $initial_utm_medium: "who", $initial_utm_campaign: "slim shady" }, "Direct"],
  ["test_no_info_is_unknown", {}, "Unknown"],
  ["test_unknown_domain_is_referral", { $initial_referring_domain: "some-unknown-domain.example.com" }, "Referral"],
  ["test_doesnt_fail_on_numbers", { $initial_referring_domain: "example.com", $initial_utm_source: 123, $initial_utm_medium: 123, $initial_utm_campaign: 123 }, "Referral"],
];

/** A session's entry values, from event properties named as the real service reads them. */
const entryOf = (p: Record<string, unknown>): Attribution => ({
  campaign: p.utm_campaign,
  medium: p.utm_medium,
  source: p.utm_source,
  referringDomain: p.$referring_domain,
  gclid: p.gclid,
  fbclid: p.fbclid,
  gadSource: p.gad_source,
});

type SessionCase = [test: string, eventProperties: Record<string, unknown>, want: string];

const sessionCases: SessionCase[] = [
  ["test_empty_session", {}, "Unknown"],
  ["test_empty_string_session", { utm_source: "", utm_medium: "", utm_campaign: "", referring_domain: "", gclid: "", gad_source: "" }, "Unknown"],
  ["test_zendesk_ticket_14945 (upper-case Paid)", { utm_source: "Facebook", utm_medium: "Paid", utm_campaign: "Foo", referring_domain: "l.facebook.com", gclid: "", gad_source: "" }, "Paid Social"],
  ["test_zendesk_ticket_14945 (email medium over a search referrer)", { utm_source: "substack", utm_medium: "email", $referring_domain: "bing.com" }, "Email"],
  ["test_zendesk_ticket_14945 (affiliate)", { utm_source: "Foo", utm_medium: "affiliate", $referring_domain: "bing.com" }, "Affiliate"],
  ["test_zendesk_ticket_14945 (partnership)", { utm_source: "Foo", utm_medium: "partnership", $referring_domain: "foo.com" }, "Affiliate"],
  ["test_hacker_news (referrer)", { utm_source: "", utm_medium: "in-product", utm_campaign: "empty-state-docs-link", $referring_domain: "news.ycombinator.com", gclid: "", gad_source: "" }, "Organic Social"],
  ["test_hacker_news (source)", { utm_source: "news.ycombinator.com", utm_medium: "in-product", utm_campaign: "empty-state-docs-link", $referring_domain: "$direct", gclid: "", gad_source: "" }, "Organic Social"],
  ["test_google_plus (source)", { utm_source: "plus.google.com", $referring_domain: "$direct" }, "Organic Social"],
  ["test_google_plus (referrer)", { $referring_domain: "plus.google.com" }, "Organic Social"],
  ["test_gmail_app", { $referring_domain: "com.google.android.gm" }, "Email"],
];

/** The test's `_get_initial_channel_type_from_wild_clicks`: a landing URL and a referrer, read as a person and as a session. */
function wildClick(url: string, referrer: string): { person: string; session: string } {
  const query = new URL(url).searchParams;
  const param = (name: string) => query.get(name) || undefined;
  const referringDomain = referrer ? new URL(referrer).host : "$direct";
  const attribution = { campaign: param("utm_campaign"), medium: param("utm_medium"), source: param("utm_source"), gclid: param("gclid"), fbclid: param("fbclid"), gadSource: param("gad_source") };
  const person = Object.fromEntries(
    Object.entries({ ...attribution, referringDomain }).map(([k, v]) => [`$initial_${{ campaign: "utm_campaign", medium: "utm_medium", source: "utm_source", referringDomain: "referring_domain", gclid: "gclid", fbclid: "fbclid", gadSource: "gad_source" }[k]}`, v]),
  );
  return { person: initialChannelType(person), session: sessionChannelType({ ...attribution, referringDomain }) };
}

type WildCase = [test: string, url: string, referrer: string, want: string];

const wildCases: WildCase[] = [
  ["test_yahoo_search_for_shoes", "https://www.temu.com/subject/n9/googleshopping-landingpage-a-psurl.html?_x_ads_sub_channel=shopping&msclkid=98833ce81fa416f104e8599a17a48b7d&utm_source=bing&utm_medium=cpc&utm_campaign=Bing%E8%B4%AD%E7%89%A9_GB_ROI&utm_term=4585925565374752", "https://uk.search.yahoo.com/", "Paid Search"],
  ["test_chrome_google_search_for_shoes", "https://www.vivaia.com/item/square-toe-v-cut-flats-p_10003645.html?gid=10011676&gad_source=1&gclid=CjwKCAiA98WrBhAYEiwA2WvhOuiyZpOvzXUVBP0KNplo9EFUSYmm4", "", "Paid Search"],
  ["test_firefox_google_search_for_shoes", "https://www.allbirds.co.uk/products/mens-wool-runner-mizzles-deep-emerald?gad_source=1&size=uk-7&utm_campaign=PMax%20%2F%2F%20UK%20%2F%2F%20Lifestyle%20Shoes&utm_content=&utm_medium=pmax&utm_source=google&utm_term=", "", "Paid Search"],
  ["test_daily_mail_ad_click", "https://www.vivaia.com/item/square-toe-v-cut-flats-p_10003645.html?gid=10011676&gclid=EAIaIQobChMIxvGy5rr_ggMVYi0GAB0KSAumEAEYASABEgLZ2PD_BwE", "https://2bb5cd7f10ba63d8b55ecfac1a3948db.safeframe.googlesyndication.com/", "Paid Unknown"],
  ["test_google_organic", "https://www.office.co.uk/", "https://www.google.com/", "Organic Search"],
  ["test_youtube_organic", "https://twitter.com/hbomberguy", "https://www.youtube.com/", "Organic Video"],
  ["test_youtube_sidebar_ad", "https://www.quooker.co.uk/?gclid=CjwKCAiAmsurBhBvEiwA6e-WPNVcMzaGnrW8G2Wd4Ye", "https://www.youtube.com/", "Paid Video"],
  ["test_facebook_sidebar_ad", "https://www.tothefairest.com/shop/?utm_source=facebook&utm_medium=cpc&utm_campaign=120201466136570051&fbclid=IwAR30EpkagUJ3vLo7", "https://l.facebook.com/", "Paid Social"],
  ["test_facebook_feed_ad", "https://www.loopearplugs.com/products/switch?utm_source=facebook&utm_medium=paid&utm_campaign=UK_EN_TOF_Purchase_BAU_ABO_NoScale_19.05.23&fbclid=IwAR3KhttbYqH0GW", "https://l.facebook.com/", "Paid Social"],
  ["test_facebook_feed_organic_link", "https://lifehacker.com/get-two-of-obsidian-entertainments-best-pc-rpgs-for-fre-1845845998?fbclid=IwAR1ZEOUVr76FRjZWnIio", "https://l.facebook.com/", "Organic Social"],
  ["test_bing_ad_click (chrome)", "https://www.mrporter.com/en-gb/mens/product/x?cm_mmc=sea&msclkid=f72b49e2bf2719cb4ee22c91ac4963a7&utm_source=bing&utm_medium=cpc&utm_campaign=BNG%3AMRP%3AEU%3AGB", "https://www.bing.com/", "Paid Search"],
  ["test_bing_ad_click (firefox)", "https://www.nisbets.co.uk/nisbets-essentials-chefs-clog-black-3839/b979-3839?vatToggle=incvat&utm_source=bing&utm_medium=cpc&utm_campaign=8+-+Shopping+-+Clothing&utm_content=Clothing", "", "Paid Search"],
  ["test_bing_organic_click", "https://www.schuh.co.uk/", "https://www.bing.com/", "Organic Search"],
  ["test_duckduckgo_organic_click", "https://www.asos.com/women/shoes/cat/?cid=4172", "https://duckduckgo.com/", "Organic Search"],
  ["test_duckduckgo_paid_click", "https://www.temu.com/uk/kuiper/un2.html?_x_ads_channel=bing&msclkid=0c97748ea8581c0fa51611f9afccba18&utm_source=bing&utm_medium=cpc&utm_campaign=0725_WJJ_UK_KW&utm_term=.%20shoes", "https://duckduckgo.com/", "Paid Search"],
  ["test_fbclid_only", "https://xyz.com/?fbclid=ABC", "", "Organic Social"],
];

describe("channel type (PostHog test_channel_type.py::TestChannelType)", () => {
  it.each(personCases)("%s: a person's $virt_initial_channel_type", (_test, properties, want) => {
    expect(initialChannelType(properties)).toBe(want);
  });

  it.each(sessionCases)("%s: a session's $channel_type", (_test, properties, want) => {
    expect(sessionChannelType(entryOf(properties))).toBe(want);
  });

  it.each(wildCases)("%s: the person and the session agree", (_test, url, referrer, want) => {
    expect(wildClick(url, referrer)).toEqual({ person: want, session: want });
  });
});

describe("cutToFirstSignificantSubdomain (ClickHouse's, as the lookups use it)", () => {
  it.each([
    ["www.google.co.uk", "google.co.uk"],
    ["l.facebook.com", "facebook.com"],
    ["uk.search.yahoo.com", "yahoo.com"],
    ["news.ycombinator.com", "ycombinator.com"],
    ["search.smt.docomo.ne.jp", "docomo.ne.jp"],
    ["google", "google"],
    ["bing.com", "bing.com"],
    ["https://www.bing.com/search?q=x", "bing.com"],
  ])("%s → %s", (host, want) => {
    expect(cutToFirstSignificantSubdomain(host)).toBe(want);
  });
});
