//! The protocols' codec, and the size of their messages. Encoding is prost's; a message that
//! does not decode is the sender's mistake, answered `INVALID_ARGUMENT` (prost's own codec
//! calls it `INTERNAL`, the server's failure). Every server and client of both protocols
//! takes and sends messages up to [`MAX_MESSAGE`], the same on both sides, so that whatever
//! one side may send the other accepts.

use prost::Message;
use tonic::codec::{BufferSettings, DecodeBuf};
use tonic::{Code, Status};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// The largest message either protocol carries, both ways (64 MiB).
pub const MAX_MESSAGE: usize = 64 << 20;

/// Prost's codec, with decoding errors the sender's.
#[derive(Debug, Clone, Default)]
pub struct Codec<T, U>(ProstCodec<T, U>);

impl<T, U> tonic::codec::Codec for Codec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = Decoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        tonic::codec::Codec::encoder(&mut self.0)
    }

    fn decoder(&mut self) -> Self::Decoder {
        Decoder(tonic::codec::Codec::decoder(&mut self.0))
    }
}

/// Prost's decoder, whose errors say the message was malformed.
#[derive(Debug, Clone)]
pub struct Decoder<U>(ProstDecoder<U>);

impl<U: Message + Default> tonic::codec::Decoder for Decoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|s| match s.code() {
            Code::Internal => Status::invalid_argument(format!("a message that does not decode: {}", s.message())),
            _ => s,
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
