//! The IDE reaches a gem whose agent serves TLS with a certificate a private authority signed,
//! trusting the authority whose certificate is in the file `ONYX_TLS_CA` names (the test
//! authority in `tests/tls/`), as the command line does; without it, the address is a clear
//! error naming the variable.

use super::*;

use onyx_protocol::tls::ServerFiles;
use onyx_server_agent::embedded::Serving;

#[test]
fn the_ide_works_in_a_gem_serving_tls_signed_by_the_authority_in_onyx_tls_ca() {
    let certs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tls");
    let dir = tempfile::tempdir().expect("a temp dir");
    let tls = ServerFiles { cert: Some(certs.join("cert.pem")), key: Some(certs.join("key.pem")) };
    let serving = Serving { tls, ..Serving::default() };
    let server = Embedded::start_with(dir.path(), Setup::default(), serving, "DataCurator", "swordfish")
        .expect("the embedded server starts");
    assert!(server.gem.starts_with("https://127.0.0.1:"), "{}", server.gem);

    let refused = Link::connect(&server.gem, "DataCurator", "swordfish", Arc::new(|| {}))
        .err()
        .expect("no authority to trust yet");
    assert!(refused.to_string().contains("ONYX_TLS_CA"), "{refused}");

    // SAFETY: no other test of this binary reads or writes the environment's ONYX_TLS_CA, and
    // Rust's own readers of the environment take the same lock as this write.
    unsafe { std::env::set_var("ONYX_TLS_CA", certs.join("ca.pem")) };
    let mut link = Link::connect(&server.gem, "DataCurator", "swordfish", Arc::new(|| {})).expect("logs in over TLS");
    let op = Op::Evaluate(pb::Evaluate { source: "3 + 4".into(), forget: true, ..Default::default() });
    assert!(matches!(&execute(&mut link, vec![op])[0], Outcome::Evaluated(e) if e.print_string == "7"));
    // The whole window works over it: a browser's gestures are answered.
    run(
        &server.gem,
        "Object subclass: #Probe instanceVariableNames: '' classVariableNames: '' package: 'Probes'. \
         System commitTransaction",
    );
    let mut h = harness_on(link);
    gesture(&mut h, "select package", |h| click_in_sight(h, "Probes"));
    gesture(&mut h, "select class", |h| h.get_by_label("Probe").click());
    let definition = h.get_by_label("Class definition").value().unwrap_or_default();
    assert!(definition.contains("Object subclass: #Probe"), "{definition}");
}
