use crate::util::Workspace;

#[test]
fn a_template_round_trips_its_unicode_name() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "腾讯云"]);
    let list = ws.json(&["platform", "list"]);
    assert_eq!(list[0]["name"], "腾讯云");
    assert_eq!(list[0]["kind"], "hyperscaler");
    assert_eq!(list[0]["template"], "腾讯云");
    assert_eq!(list[0]["claims"], 2);
    let shown = ws.json(&["platform", "show", "腾讯云"]);
    assert_eq!(shown["claims"][0]["value"], 99.94);
    assert!(
        shown["claims"][0]["source"]
            .as_str()
            .unwrap()
            .contains("7-day high-load stability review")
    );
}

#[test]
fn templates_are_listed_and_found_by_latin_alias() {
    let ws = Workspace::new();
    let templates = ws.json(&["platform", "templates"]);
    assert_eq!(templates.as_array().unwrap().len(), 9);
    let out = ws.ok(&["platform", "add", "--template", "aliyun"]);
    assert!(out.starts_with("added platform 阿里云"), "{out}");
    // AWS comes with its published on-demand rule and its source.
    ws.ok(&["platform", "add", "--template", "ec2"]);
    let rules = ws.json(&["billing", "show", "--platform", "AWS"]);
    assert_eq!(rules[0]["granularity_s"], 1, "{rules}");
    assert_eq!(rules[0]["minimum_charge_s"], 60, "{rules}");
    // The alias keeps working wherever a platform is named.
    assert_eq!(ws.json(&["platform", "show", "aliyun"])["name"], "阿里云");
}

#[test]
fn a_template_can_be_added_under_another_name() {
    let ws = Workspace::new();
    ws.ok(&[
        "platform",
        "add",
        "AutoDL (team account)",
        "--template",
        "autodl",
    ]);
    let shown = ws.json(&["platform", "show", "AutoDL (team account)"]);
    assert_eq!(shown["template"], "AutoDL");
    assert_eq!(shown["claims"].as_array().unwrap().len(), 3);
}

#[test]
fn add_edit_and_remove_by_hand() {
    let ws = Workspace::new();
    let added = ws.json(&[
        "platform",
        "add",
        "Lab cluster",
        "--kind",
        "other",
        "--notes",
        "on-prem",
    ]);
    assert_eq!(added["name"], "Lab cluster");
    ws.ok(&[
        "platform",
        "edit",
        "lab CLUSTER",
        "--name",
        "实验室集群",
        "--kind",
        "marketplace",
    ]);
    let shown = ws.json(&["platform", "show", "实验室集群"]);
    assert_eq!(shown["kind"], "marketplace");
    assert_eq!(shown["notes"], "on-prem");
    let out = ws.ok(&["platform", "rm", "实验室集群"]);
    assert_eq!(
        out,
        "deleted platform 实验室集群 with 0 offering(s) and 0 run(s)\n"
    );
    assert_eq!(ws.json(&["platform", "list"]), serde_json::json!([]));
}

#[test]
fn human_listing_is_a_table() {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    assert_eq!(
        ws.ok(&["platform", "list"]),
        "no platforms yet; add one with `breakpoint platform add NAME` or `--template NAME`\n"
    );
    ws.ok(&["platform", "add", "--template", "华为云"]);
    let out = ws.ok(&["platform", "list"]);
    assert!(out.contains("platform") && out.contains("华为云") && out.contains("hyperscaler"));
}

#[test]
fn claims_are_added_and_listed_with_their_source() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "AWS", "--kind", "hyperscaler"]);
    ws.ok(&[
        "claim",
        "add",
        "--platform",
        "AWS",
        "--subject",
        "availability",
        "--value",
        "99.99",
        "--unit",
        "%",
        "--source",
        "EC2 SLA",
    ]);
    let claims = ws.json(&["claim", "list", "--platform", "aws"]);
    assert_eq!(claims[0]["subject"], "availability");
    assert_eq!(claims[0]["value"], 99.99);
    assert_eq!(claims[0]["source"], "EC2 SLA");
    assert!(ws.ok(&["claim", "list"]).contains("EC2 SLA"));
}
