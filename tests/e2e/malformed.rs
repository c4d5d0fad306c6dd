//! Messages that do not decode, sent as raw bytes to a real stone and a real gem: each is
//! answered `INVALID_ARGUMENT` (the sender's mistake), a session's stream ends with that
//! error rather than OK, and both servers go on serving.

use std::time::Duration;

use prost::Message as _;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};

use crate::agent::GemProcess;

/// A field that claims more bytes than follow: no message decodes from it.
const GARBAGE: &[u8] = &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01];

/// Sends and receives messages as the bytes they are.
#[derive(Clone, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let n = bytes::Buf::remaining(buf);
        Ok(Some(bytes::Buf::copy_to_bytes(buf, n).to_vec()))
    }
    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

async fn grpc(addr: &str) -> tonic::client::Grpc<tonic::transport::Channel> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("an endpoint")
        .connect()
        .await
        .expect("a connection");
    tonic::client::Grpc::new(channel)
}

#[test]
fn messages_that_do_not_decode_are_invalid_arguments_and_the_servers_go_on() {
    let (_dir, stone) = crate::agent::repository();
    let gem = GemProcess::start(&stone);
    let runtime = crate::agent::runtime();
    runtime.block_on(async {
        // The agent: a login that does not decode.
        let mut agent = grpc(&gem.addr).await;
        agent.ready().await.expect("ready");
        let path = http::uri::PathAndQuery::from_static("/onyx.agent.v1.Agent/Login");
        let refused = agent.unary(tonic::Request::new(GARBAGE.to_vec()), path, Raw).await.expect_err("refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        // The stone: a session's first message, and one after its login.
        for before in [Vec::new(), vec![login()]] {
            let mut session = grpc(&stone.addr).await;
            session.ready().await.expect("ready");
            let path = http::uri::PathAndQuery::from_static("/onyx.stone.v1.Stone/Session");
            let mut messages = before.clone();
            messages.push(GARBAGE.to_vec());
            let requests = tokio_stream::iter(messages);
            let outcome = session.streaming(tonic::Request::new(requests), path, Raw).await;
            let status = match outcome {
                Err(status) => status,
                Ok(replies) => {
                    let mut replies = replies.into_inner();
                    loop {
                        match tokio::time::timeout(Duration::from_secs(10), replies.message()).await {
                            Ok(Ok(Some(_))) => continue,
                            Ok(Err(status)) => break status,
                            other => panic!("the stream ended without an error: {other:?}"),
                        }
                    }
                }
            };
            assert_eq!(status.code(), Code::InvalidArgument, "after {} messages: {status:?}", before.len());
        }
    });
    // Both still serve.
    assert!(crate::stone::connect(&stone.addr).is_ok());
    runtime.block_on(async { crate::agent::client(&gem).await });
}

fn login() -> Vec<u8> {
    use onyx_protocol::stone::{self as pb, request::Op};
    let login = pb::Login { user: "DataCurator".into(), password: "swordfish".into() };
    pb::Request { op: Some(Op::Login(login)) }.encode_to_vec()
}

/// An act on a session that is none: the agent and the stone each answer that the request is
/// invalid, saying what it may be, and the session goes on.
#[test]
fn an_administrators_act_that_is_no_act_is_refused_as_invalid() {
    use onyx_protocol::agent::{self as agent_pb, operation::Op as AgentOp, result::Outcome};
    use onyx_protocol::stone::{self as pb, reply::Answer, request::Op};
    let (_dir, stone) = crate::agent::repository();
    let gem = GemProcess::start(&stone);
    let runtime = crate::agent::runtime();
    runtime.block_on(async {
        let mut curator = crate::agent::client(&gem).await;
        let unset = agent_pb::AdministerSession { session: 1, act: 0 };
        let unknown = agent_pb::AdministerSession { session: 1, act: 99 };
        let ops = [unset, unknown].map(|a| crate::agent::op(AgentOp::AdministerSession(a)));
        for outcome in crate::agent::execute(&mut curator, ops.to_vec()).await {
            let error = crate::agent::error(&outcome);
            assert!(error.message.contains("say what to do to the session"), "{error:?}");
        }
        let still = crate::agent::execute(&mut curator, vec![crate::agent::evaluate("3 + 4")]).await;
        assert!(matches!(&still[0], Outcome::Evaluated(e) if e.print_string == "7"), "{still:?}");

        let mut session = grpc(&stone.addr).await;
        session.ready().await.expect("ready");
        let path = http::uri::PathAndQuery::from_static("/onyx.stone.v1.Stone/Session");
        let act = pb::Request { op: Some(Op::Administer(pb::AdministerSession { session: 1, act: 99 })) };
        let requests = tokio_stream::iter([login(), act.encode_to_vec()]);
        let mut replies =
            session.streaming(tonic::Request::new(requests), path, Raw).await.expect("a session").into_inner();
        let opened = replies.message().await.expect("a reply").expect("the login's");
        assert!(matches!(pb::Reply::decode(&opened[..]).expect("a reply").answer, Some(Answer::Opened(_))));
        let answer = replies.message().await.expect("a reply").expect("the act's");
        match pb::Reply::decode(&answer[..]).expect("a reply").answer {
            Some(Answer::Failure(f)) => {
                assert_eq!(f.kind, pb::FailureKind::Invalid as i32, "{f:?}");
                assert!(f.message.contains("99 is no act on a session"), "{f:?}");
            }
            other => panic!("not refused: {other:?}"),
        }
    });
}
