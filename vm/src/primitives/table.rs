//! The names of the primitives: one constant per primitive number the VM implements, each
//! with the Smalltalk methods that declare it and what it does, and [`TABLE`], the same list
//! as data (for a debugger to show a primitive's name). The modules of `primitives` dispatch
//! on these constants; the areas their numbers fall in are in `primitives/mod.rs`.
//!
//! A test checks that every `<primitive: N>` in the kernel sources has a name here.

/// A primitive's number, name and description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    /// The number methods declare with `<primitive: N>`.
    pub number: u16,
    /// The constant's name, e.g. `"INTEGER_ADD"`.
    pub name: &'static str,
    /// The methods that declare it and what it does (one line).
    pub doc: &'static str,
}

/// Defines a `pub const NAME: u16 = N;` for each entry, with its doc comment (one line: the
/// macro takes no more), and [`TABLE`] listing them all in the order given.
macro_rules! primitives {
    ($(#[doc = $doc:literal] $name:ident = $number:literal;)*) => {
        $(
            #[doc = $doc]
            pub const $name: u16 = $number;
        )*

        /// Every primitive the VM implements, in number order.
        pub static TABLE: &[Primitive] = &[
            $(Primitive { number: $name, name: stringify!($name), doc: $doc.trim_ascii() },)*
        ];
    };
}

primitives! {
    // Integer (1-29, `integer.rs`): SmallInteger fast paths, LargeIntegers otherwise; the
    // results are integers of any size, normalised to SmallInteger when they fit.

    /// `Integer>>+` (and `SmallInteger`'s): the sum of two integers.
    INTEGER_ADD = 1;
    /// `Integer>>-`: the difference of two integers.
    INTEGER_SUBTRACT = 2;
    /// `Integer>><`: whether the receiver is less than the integer argument.
    INTEGER_LESS = 3;
    /// `Integer>>>`: whether the receiver is greater than the integer argument.
    INTEGER_GREATER = 4;
    /// `Integer>><=`: whether the receiver is at most the integer argument.
    INTEGER_LESS_OR_EQUAL = 5;
    /// `Integer>>>=`: whether the receiver is at least the integer argument.
    INTEGER_GREATER_OR_EQUAL = 6;
    /// `Integer>>=`: whether two integers are equal (fails for a non-integer argument).
    INTEGER_EQUAL = 7;
    /// `Integer>>~=`: whether two integers differ.
    INTEGER_NOT_EQUAL = 8;
    /// `Integer>>*`: the product of two integers.
    INTEGER_MULTIPLY = 9;
    /// `Integer>>/`: the quotient when the division is exact; fails otherwise (the method makes a Fraction).
    INTEGER_DIVIDE = 10;
    /// `Integer>>\\`: the remainder of floored division (the sign of the divisor); fails on zero.
    INTEGER_MODULO = 11;
    /// `Integer>>//`: the quotient rounded toward negative infinity; fails on zero.
    INTEGER_FLOOR_DIVIDE = 12;
    /// `Integer>>quo:`: the quotient truncated toward zero; fails on zero.
    INTEGER_QUOTIENT = 13;
    /// `Integer>>bitAnd:`: the bitwise and (two's complement).
    INTEGER_BIT_AND = 14;
    /// `Integer>>bitOr:`: the bitwise or (two's complement).
    INTEGER_BIT_OR = 15;
    /// `Integer>>bitXor:`: the bitwise exclusive or (two's complement).
    INTEGER_BIT_XOR = 16;
    /// `Integer>>bitShift:`: shifted left by a positive count, right (arithmetic) by a negative one.
    INTEGER_BIT_SHIFT = 17;
    /// `Integer>>rem:`: the remainder of truncated division (the sign of the receiver); fails on zero.
    INTEGER_REMAINDER = 18;
    /// `Integer>>gcd:`: the greatest common divisor, non-negative.
    INTEGER_GCD = 19;
    /// `Integer>>printString`, `printString:`: the digits in base 10, or a base from 2 to 36 (upper case).
    INTEGER_PRINT_STRING = 20;
    /// `Integer>>asFloat`: the nearest Float.
    INTEGER_AS_FLOAT = 21;
    /// `Integer>>highBit`: the number of bits of a non-negative integer; fails for a negative one.
    INTEGER_HIGH_BIT = 22;
    /// `Integer>>hash`: a hash that agrees with `=` whatever the integer's size.
    INTEGER_HASH = 23;
    /// `Integer>>sqrtFloor`: the integer square root, rounded down; fails for a negative receiver.
    INTEGER_SQRT_FLOOR = 24;
    /// `Integer>>raisedToInteger:`: the power; fails for an exponent outside 0 to 2^20 or a result over 2^26 bits.
    INTEGER_RAISED_TO_INTEGER = 25;
    /// `Integer>>lowBit`: the 1-based index of the lowest set bit, 0 for zero.
    INTEGER_LOW_BIT = 26;

    // Float (30-59, `float.rs`): the receiver is a Float; an argument may be a Float or an
    // integer of any size.

    /// `Float>>cos`: the cosine (radians).
    FLOAT_COS = 30;
    /// `Float>>tan`: the tangent (radians).
    FLOAT_TAN = 31;
    /// `Float>>arcSin`: the arc sine, in radians.
    FLOAT_ARC_SIN = 32;
    /// `Float>>arcCos`: the arc cosine, in radians.
    FLOAT_ARC_COS = 33;
    /// `Float>>printString`: the shortest digits that read back exactly, laid out as Pharo prints them.
    FLOAT_PRINT_STRING = 34;
    /// `Float>>floorAsFloat`: the largest integral Float not above the receiver.
    FLOAT_FLOOR = 35;
    /// `Float>>primHash`: a hash that agrees with `=` (an integral Float hashes like the equal Integer).
    FLOAT_HASH = 36;
    /// `Float class>>primConstant:`: infinity, nan, pi, e, fmax, fminNormalized, epsilon, fminDenormalized (0-7).
    FLOAT_CONSTANT = 37;
    /// `Float>>primRaisedTo:`: the receiver to the power of the argument.
    FLOAT_RAISED_TO = 38;
    /// `Float>>arcTan:`: the angle of the point (denominator, receiver), in radians (`atan2`).
    FLOAT_ARC_TAN2 = 39;
    /// `Float>>log`: the base-10 logarithm.
    FLOAT_LOG10 = 40;
    /// `Float>>+`: the sum.
    FLOAT_ADD = 41;
    /// `Float>>-`: the difference.
    FLOAT_SUBTRACT = 42;
    /// `Float>><`: whether the receiver is less than the argument (exact against integers).
    FLOAT_LESS = 43;
    /// `Float>>>`: whether the receiver is greater than the argument (exact against integers).
    FLOAT_GREATER = 44;
    /// `Float>><=`: whether the receiver is at most the argument (exact against integers).
    FLOAT_LESS_OR_EQUAL = 45;
    /// `Float>>>=`: whether the receiver is at least the argument (exact against integers).
    FLOAT_GREATER_OR_EQUAL = 46;
    /// `Float>>=`: whether the receiver equals a Float or integer (exactly).
    FLOAT_EQUAL = 47;
    /// `Float>>~=`: whether the receiver differs from a Float or integer (exactly).
    FLOAT_NOT_EQUAL = 48;
    /// `Float>>*`: the product.
    FLOAT_MULTIPLY = 49;
    /// `Float>>/`: the quotient; fails on a zero divisor.
    FLOAT_DIVIDE = 50;
    /// `Float>>truncated`: the integer toward zero, of any size; fails for an infinity or nan.
    FLOAT_TRUNCATED = 51;
    /// `Float>>fractionPart`: the receiver minus its integer part.
    FLOAT_FRACTION_PART = 52;
    /// `Float>>exponent`: the binary exponent (0 for zero, infinities and nan).
    FLOAT_EXPONENT = 53;
    /// `Float>>primTimesTwoPower:`: the receiver times 2 to the power of the SmallInteger argument.
    FLOAT_TIMES_TWO_POWER = 54;
    /// `Float>>sqrt`: the square root.
    FLOAT_SQRT = 55;
    /// `Float>>sin`: the sine (radians).
    FLOAT_SIN = 56;
    /// `Float>>arcTan`: the arc tangent, in radians.
    FLOAT_ARC_TAN = 57;
    /// `Float>>ln`: the natural logarithm.
    FLOAT_LN = 58;
    /// `Float>>exp`: e to the power of the receiver.
    FLOAT_EXP = 59;

    // Objects (60-79, `object.rs`).

    /// `Object>>basicAt:`, `at:` (`Array`, `ByteArray`): an indexed slot, or a byte as a SmallInteger.
    OBJECT_BASIC_AT = 60;
    /// `Object>>basicAt:put:`, `at:put:` (`Array`, `ByteArray`): stores into an indexed slot or byte.
    OBJECT_BASIC_AT_PUT = 61;
    /// `Object>>basicSize`, `size` (`Array`, `ByteArray`, `ArrayedCollection`): the number of indexed elements.
    OBJECT_BASIC_SIZE = 62;
    /// `String>>at:`: the byte at an index as a Character.
    STRING_AT = 63;
    /// `String>>at:put:`: stores a Character below 256 at an index (fails for a Symbol).
    STRING_AT_PUT = 64;
    /// `Object>>instVarAt:`: a pointer slot, counting the named slots then the indexed ones.
    OBJECT_INST_VAR_AT = 65;
    /// `Object>>instVarAt:put:`: stores into a pointer slot, counting named then indexed slots.
    OBJECT_INST_VAR_AT_PUT = 66;
    /// (No kernel method.) The number of named instance variables of a class's instances.
    BEHAVIOR_INST_SIZE = 67;
    /// `ArrayedCollection>>replaceFrom:to:with:startingAt:`: copies a range of slots or bytes.
    ARRAYED_COLLECTION_REPLACE = 68;
    /// `Behavior>>basicNew`: a new instance without indexed elements, its slots nil.
    BEHAVIOR_BASIC_NEW = 70;
    /// `Behavior>>basicNew:`: a new instance of an indexable class with that many elements.
    BEHAVIOR_BASIC_NEW_SIZE = 71;
    /// `Object>>==`: whether the receiver and the argument are the same object.
    OBJECT_IDENTICAL = 72;
    /// `Object>>class`: the receiver's class.
    OBJECT_CLASS = 73;
    /// `Object>>identityHash`: the object's identity hash (an immediate value's made from its bits).
    OBJECT_IDENTITY_HASH = 74;
    /// `Object>>shallowCopy`: a copy sharing the slots' values (a Symbol answers itself).
    OBJECT_SHALLOW_COPY = 75;
    /// `Behavior>>allInstances`: an Array of the class's instances in memory.
    BEHAVIOR_ALL_INSTANCES = 76;
    /// (No kernel method.) The number of named slots of the receiver.
    OBJECT_NAMED_SIZE = 77;
    /// (No kernel method.) `changeClassTo:`: makes the receiver an instance of a class of the same shape.
    OBJECT_CHANGE_CLASS_TO = 78;

    // Blocks and perform (80-99, `block.rs`).

    /// `BlockClosure>>value` to `value:value:value:value:`: runs the block with the arguments.
    BLOCK_VALUE = 80;
    /// `BlockClosure>>valueWithArguments:`: runs the block with the elements of an Array.
    BLOCK_VALUE_WITH_ARGUMENTS = 81;
    /// `BlockClosure>>numArgs`: the number of arguments the block takes.
    BLOCK_NUM_ARGS = 82;
    /// `Object>>perform:` to `perform:with:with:with:with:`: sends a Symbol with the arguments.
    OBJECT_PERFORM = 83;
    /// `Object>>perform:withArguments:`: sends a Symbol with the elements of an Array.
    OBJECT_PERFORM_WITH_ARGUMENTS = 84;
    /// `BlockClosure>>outerContext`: the Context of the activation that made the block, nil if gone.
    BLOCK_OUTER_CONTEXT = 85;

    // Processes, semaphores, timers and clocks (100-129, `process.rs`).

    /// `Semaphore>>signal`: resumes a waiting process, or counts an excess signal.
    SEMAPHORE_SIGNAL = 101;
    /// `Semaphore>>wait`: takes an excess signal, or suspends the running process on the semaphore.
    SEMAPHORE_WAIT = 102;
    /// `Semaphore>>excessSignals`: the number of signals no process has waited for.
    SEMAPHORE_EXCESS_SIGNALS = 103;
    /// `Semaphore>>initSignals`: forgets the excess signals.
    SEMAPHORE_INIT_SIGNALS = 104;
    /// `BlockClosure>>newProcess`: a suspended process that will run the block, at the active priority.
    BLOCK_NEW_PROCESS = 105;
    /// `Process>>resume`: makes a suspended process ready (it may preempt the running one).
    PROCESS_RESUME = 107;
    /// `Process>>suspend`: stops a process until it is resumed.
    PROCESS_SUSPEND = 108;
    /// `Process>>primTerminate`: ends a process (its unwinding done in Smalltalk first).
    PROCESS_TERMINATE = 109;
    /// `ProcessorScheduler>>yield`: lets the other ready processes of the same priority run.
    PROCESSOR_YIELD = 110;
    /// `ProcessorScheduler>>activeProcess`: the running process.
    PROCESSOR_ACTIVE_PROCESS = 111;
    /// `Process>>priority:`: sets the priority (1 to the highest); may preempt.
    PROCESS_SET_PRIORITY = 112;
    /// `Process>>status`: `#running`, `#ready`, `#waiting`, `#suspended` or `#terminated`.
    PROCESS_STATUS = 113;
    /// `ProcessorScheduler>>signal:afterMilliseconds:`: signals a Semaphore after a delay (for Delay).
    PROCESSOR_SIGNAL_AFTER_MILLISECONDS = 114;
    /// `ProcessorScheduler>>cancelTimersFor:`: forgets the pending timers of a Semaphore.
    PROCESSOR_CANCEL_TIMERS = 115;
    /// `Time class>>millisecondClock` and friends: milliseconds since the VM started.
    TIME_MILLISECOND_CLOCK = 116;
    /// `Time class>>microsecondClock`, `microsecondClockValue`: microseconds since the VM started.
    TIME_MICROSECOND_CLOCK = 117;
    /// `Time class>>primWallClock`: `{seconds. nanoseconds}` since the Unix epoch.
    TIME_WALL_CLOCK = 118;
    /// `Process>>suspendedContext`: the top Context of a process that is not running.
    PROCESS_SUSPENDED_CONTEXT = 119;
    /// `Process>>primInject:`: makes a suspended process send a selector to itself, with its top Context.
    PROCESS_INJECT = 120;
    /// `ProcessorScheduler>>readyProcessCount`: the number of ready processes.
    PROCESSOR_READY_PROCESS_COUNT = 121;

    // String, Symbol and Character (130-159, `string.rs`): byte strings and WideStrings.

    /// `String>>=`: whether the argument is a String or Symbol with the same bytes.
    STRING_EQUAL = 130;
    /// `String>>hash`, `Symbol>>hash`: a content hash stable across sessions.
    STRING_HASH = 131;
    /// `String>>asSymbol`: the Symbol with the receiver's bytes.
    STRING_AS_SYMBOL = 132;
    /// `Symbol>>asString`: a new String with the receiver's bytes.
    SYMBOL_AS_STRING = 133;
    /// `String>>primCompare:`: -1, 0 or 1 as the receiver's bytes sort before, with or after the argument's.
    STRING_COMPARE = 134;
    /// `String>>,`: the concatenation with another String (a String for a Symbol receiver).
    STRING_CONCATENATE = 135;
    /// `String>>findString:startingAt:`: the index where a substring next starts, or 0.
    STRING_FIND_STRING = 136;
    /// `String>>asUppercase`: a copy in upper case (a Symbol for a Symbol).
    STRING_AS_UPPERCASE = 137;
    /// `String>>asLowercase`: a copy in lower case (a Symbol for a Symbol).
    STRING_AS_LOWERCASE = 138;
    /// `String>>primAsNumber`: the number a Smalltalk number literal (with an optional `-`) denotes, or nil.
    STRING_AS_NUMBER = 139;
    /// `Character class>>value:`: the Character with a code point.
    CHARACTER_FROM_CODE_POINT = 140;
    /// `Character>>value`, `asInteger`, `codePoint`, `asciiValue`: the code point.
    CHARACTER_CODE_POINT = 141;
    /// `Character>>caseConvert:`: the upper (argument true) or lower case Character.
    CHARACTER_CASE_CONVERT = 142;
    /// `Character>>classify:`: letter, digit, separator, uppercase, lowercase or alphanumeric (0-5).
    CHARACTER_CLASSIFY = 143;
    /// `String>>asByteArray`: a ByteArray with the receiver's bytes.
    STRING_AS_BYTE_ARRAY = 144;
    /// `ByteArray>>asString`: a String with the receiver's bytes.
    BYTE_ARRAY_AS_STRING = 145;
    /// `String>>numArgs`, `Symbol>>numArgs`: the number of arguments the selector takes.
    STRING_NUM_ARGS = 146;
    /// `String>>quoted`: the receiver between single quotes, with embedded quotes doubled.
    STRING_QUOTED = 147;
    /// `String>>primSubstrings:`: the pieces between separator characters (nil: white space).
    STRING_SUBSTRINGS = 155;
    /// `String>>sameAs:`: whether two strings are equal ignoring case.
    STRING_SAME_AS = 158;
    /// `String>>indexOf:startingAt:`, `ByteArray>>indexOf:startingAt:`: the index of a Character (a byte) from a start, or 0.
    STRING_INDEX_OF = 159;

    // Native dictionaries, the Transcript, system services (160-197, `system.rs`).

    /// `TranscriptStream>>primShow:`: appends a String to the Transcript.
    TRANSCRIPT_SHOW = 160;
    /// `MethodDictionary>>at:ifAbsent:`, `SymbolDictionary>>bindingAt:ifAbsent:`: the value at a key.
    NATIVE_DICT_AT = 162;
    /// `MethodDictionary>>at:put:`, `SymbolDictionary>>primAt:put:`: stores at a key (code needs the privilege).
    NATIVE_DICT_AT_PUT = 163;
    /// `MethodDictionary>>removeKey:ifAbsent:`, `SymbolDictionary>>primRemoveKey:ifAbsent:`: removes a key.
    NATIVE_DICT_REMOVE_KEY = 164;
    /// `MethodDictionary>>keys`, `SymbolDictionary>>keys`: an Array of the keys.
    NATIVE_DICT_KEYS = 165;
    /// `MethodDictionary>>size`, `SymbolDictionary>>size`: the number of entries.
    NATIVE_DICT_SIZE = 166;
    /// `MethodDictionary>>values`, `SymbolDictionary>>bindings`: an Array of the values.
    NATIVE_DICT_VALUES = 167;
    /// `MethodDictionary>>includesKey:`: whether a key is present.
    NATIVE_DICT_INCLUDES_KEY = 168;
    /// `SystemDictionary>>garbageCollect`: asks for a garbage collection of the object memory.
    SMALLTALK_GARBAGE_COLLECT = 170;
    /// `Compiler class>>evaluate:`: compiles and runs a doit with nil as receiver.
    COMPILER_EVALUATE = 171;
    /// `Compiler class>>lastErrorMessage`: the last compile or class definition error.
    COMPILER_LAST_ERROR_MESSAGE = 172;
    /// `Compiler class>>evaluate:for:`: compiles and runs a doit with the given receiver.
    COMPILER_EVALUATE_FOR = 173;
    /// `SystemDictionary>>vmStatistics`: a line about the object memory and its collections.
    SMALLTALK_VM_STATISTICS = 174;
    /// `SystemDictionary>>version`: `'Onyx '` and the VM's version.
    SMALLTALK_VERSION = 175;
    /// `Random class>>entropySeed`: a seed mixed from the clocks.
    RANDOM_ENTROPY_SEED = 181;

    // Markers: the primitive always fails, the method's code runs; the number marks the
    // activation for the frame searches of `context.rs` and the interpreter.

    /// `BlockClosure>>ensure:`, `ifCurtailed:`: marks activations that unwinding must run.
    UNWIND_MARKER = 198;
    /// `BlockClosure>>on:do:`: marks the activations the exception search looks for.
    HANDLER_MARKER = 199;

    // Contexts and exceptions (200-229, `context.rs`): the receiver is a live Context.

    /// `Context>>sender`: the sender's Context, nil for the bottom activation.
    CONTEXT_SENDER = 200;
    /// `Context>>receiver`: the activation's receiver.
    CONTEXT_RECEIVER = 201;
    /// `Context>>method`: the activation's CompiledMethod.
    CONTEXT_METHOD = 202;
    /// `Context>>tempAt:`: a register (0 the receiver, then arguments and temporaries).
    CONTEXT_TEMP_AT = 203;
    /// `Context>>tempAt:put:`: stores into a register.
    CONTEXT_TEMP_AT_PUT = 204;
    /// `Context>>isDead`: whether the activation has returned.
    CONTEXT_IS_DEAD = 205;
    /// `Context>>closure`: the block being run, nil for a method activation.
    CONTEXT_CLOSURE = 206;
    /// `Context>>nextHandlerContext`: the nearest `on:do:` activation among the senders, or nil.
    CONTEXT_NEXT_HANDLER_CONTEXT = 207;
    /// `Context>>findNextUnwindContextUpTo:`: the nearest `ensure:`/`ifCurtailed:` sender before a Context.
    CONTEXT_FIND_NEXT_UNWIND_CONTEXT = 208;
    /// `Context>>terminateTo:`: drops the frames between `thisContext` and a sender, which it returns to.
    CONTEXT_TERMINATE_TO = 209;
    /// `Context>>primRestart`: drops the frames above and runs the activation again from the start.
    CONTEXT_RESTART = 210;
    /// `Context>>stepPoint`: `{line. column. start. end}` of where the activation is in its source.
    CONTEXT_STEP_POINT = 211;
    /// `Context>>label`: `Class(MethodClass)>>selector`, with `[] in` for a block.
    CONTEXT_LABEL = 212;
    /// `Context>>numArgs`: the number of arguments of the method or block.
    CONTEXT_NUM_ARGS = 213;
    /// `Exception>>primReportUnhandled:`: reports an unhandled error and suspends the running process.
    EXCEPTION_REPORT_UNHANDLED = 214;
    /// `Context>>tempNames`: the names of the arguments and temporaries.
    CONTEXT_TEMP_NAMES = 215;
    /// `Context>>tempNamed:`: the value of an argument or temporary by name.
    CONTEXT_TEMP_NAMED = 216;
    /// `Context>>pc`: the activation's pc.
    CONTEXT_PC = 217;
    /// (No kernel method.) The process the Context belongs to.
    CONTEXT_PROCESS = 218;
    /// `Context>>home`: the Context of the method activation a block belongs to.
    CONTEXT_HOME = 219;
    /// `Context>>primRestartIn:`: as `primRestart`, in a new version of the method if one is given (edit and continue).
    CONTEXT_RESTART_IN = 220;

    // Classes, compiling, CompiledMethod (250-279, `class.rs`).

    /// `Class class>>primDefine:superclass:instVars:classVars:classInstVars:kind:category:`: (re)defines a class.
    CLASS_DEFINE = 250;
    /// `Behavior>>compile:classified:`: compiles and installs a method, answering its selector.
    BEHAVIOR_COMPILE = 251;
    /// `Behavior>>removeSelector:`: removes a method, answering it or nil.
    BEHAVIOR_REMOVE_SELECTOR = 252;
    /// `Behavior>>lookupSelector:`: the method a send of the selector runs, or nil.
    BEHAVIOR_LOOKUP_SELECTOR = 253;
    /// `CompiledMethod>>field:`: selector, class, source, numArgs, protocol, literals, pragmas, primitive, code (0-8).
    COMPILED_METHOD_FIELD = 254;
    /// `CompiledMethod>>protocol:`: sets the method's protocol (fails for a user who may not change code).
    COMPILED_METHOD_SET_PROTOCOL = 255;
    /// `Class>>primRename:`: names a class anew in `Smalltalk`, keeping its binding (the one methods compiled against it hold).
    CLASS_RENAME = 256;
    /// `Class>>removeFromSystem`: removes a class from `Smalltalk` and its superclass.
    CLASS_REMOVE_FROM_SYSTEM = 257;

    // Transactions and locks (280-299, `transaction.rs`): `System class` methods; they fail
    // without a repository or when the stone refuses.

    /// `System class>>primCommitTransaction`: commits the transaction; false on a conflict.
    SYSTEM_COMMIT_TRANSACTION = 280;
    /// `System class>>primAbortTransaction`: drops local changes and views the latest commit.
    SYSTEM_ABORT_TRANSACTION = 281;
    /// `System class>>transactionConflicts`: the objects the last failed commit conflicted on.
    SYSTEM_TRANSACTION_CONFLICTS = 282;
    /// `System class>>session`: this gem's session number, or nil without a repository.
    SYSTEM_SESSION = 283;
    /// `System class>>readLock:`: read-locks an object until the transaction ends.
    SYSTEM_READ_LOCK = 284;
    /// `System class>>writeLock:`: write-locks an object until the transaction ends.
    SYSTEM_WRITE_LOCK = 285;
    /// `System class>>removeLock:`: releases this session's lock on an object.
    SYSTEM_REMOVE_LOCK = 286;
    /// `System class>>removeLocksForSession`: releases all of this session's locks.
    SYSTEM_REMOVE_LOCKS_FOR_SESSION = 287;
    /// `System class>>lastStoreError`: why the last repository operation failed.
    SYSTEM_LAST_STORE_ERROR = 288;
    /// `System class>>hasRepository`: whether the VM is attached to a stone.
    SYSTEM_HAS_REPOSITORY = 289;
    /// `System class>>continueTransactionRefreshing:`: moves to the latest commit, reloading some objects.
    SYSTEM_CONTINUE_TRANSACTION_REFRESHING = 290;
    /// `System class>>primSessionTemps`: the session's transient dictionary, or nil.
    SYSTEM_SESSION_TEMPS = 291;
    /// `System class>>primSessionTemps:`: sets the session's transient dictionary.
    SYSTEM_SET_SESSION_TEMPS = 292;
    /// `System class>>collectGarbage`: the repository's garbage collection, answering how many it deleted.
    SYSTEM_COLLECT_GARBAGE = 293;
    /// `System class>>isPersistent:`: whether an object is committed in the repository.
    SYSTEM_IS_PERSISTENT = 294;
    /// `System class>>lastStoreErrorClass`: the exception class for the kind of the last failure.
    SYSTEM_LAST_STORE_ERROR_CLASS = 295;
    /// `System class>>needsCommit`: whether a persistent object changed in this transaction.
    SYSTEM_NEEDS_COMMIT = 296;

    // Security (300-309, `security.rs`): the session's user and object security policies;
    // the policy primitives fail without a repository or when the stone refuses.

    /// `System class>>myUserProfile`: the session's user's `UserProfile` (their symbol list).
    SYSTEM_MY_USER_PROFILE = 300;
    /// `Object>>primObjectSecurityPolicyId`: the id of the policy the receiver belongs to (or will, when committed).
    OBJECT_POLICY_ID = 301;
    /// `Object>>primObjectSecurityPolicyId:`: puts the receiver in a policy, from its next commit.
    OBJECT_SET_POLICY_ID = 302;
    /// `GsObjectSecurityPolicy class>>primPolicyAt:`: a policy as the stone keeps it (owner, owner's, world's and groups' access).
    POLICY_AT = 303;
    /// `GsObjectSecurityPolicy class>>primDefine:owner:ownerAccess:worldAccess:groups:`: defines a policy at the stone, answering its id.
    POLICY_DEFINE = 304;

    // Encodings and hashes (310-319, `bytes.rs`): the bytes of any byte object.

    /// `String>>utf8Encoded`: the characters as UTF-8, a ByteArray (fails on a code point that is no character).
    STRING_UTF8_ENCODED = 310;
    /// `ByteArray>>utf8Decoded`, `String>>utf8Decoded`: the bytes read as UTF-8, a String (fails on invalid UTF-8).
    BYTES_UTF8_DECODED = 311;
    /// `ByteArray>>utf8ErrorIndex`: the index of the first byte that is not valid UTF-8, 0 when all are.
    BYTES_UTF8_ERROR_OFFSET = 312;
    /// `ByteArray>>base64Encoded`: the bytes in Base64 (RFC 4648, padded), a String.
    BYTES_BASE64_ENCODED = 313;
    /// `String>>base64Decoded`: the bytes a Base64 String holds, white space skipped, padding optional (fails on any other character).
    STRING_BASE64_DECODED = 314;
    /// `HashFunction class>>primDigest:algorithm:`: the MD5 (0), SHA-1 (1) or SHA-256 (2) digest of a byte object, a ByteArray.
    HASH_DIGEST = 315;
    /// `UUID>>primFillRandom`: fills a 16-byte receiver with a random (version 4) UUID.
    UUID_FILL_RANDOM = 316;

    // Files and the operating system (320-339, `files.rs`): all but the first two need a
    // user who may change code; a failure leaves its reason for `OSPlatform class>>lastError`.

    /// `OSPlatform class>>lastError`: why the last file or environment primitive failed.
    OS_LAST_ERROR = 320;
    /// `OSPlatform class>>primPlatformName`: the operating system's name (`linux`, `macos`, `windows`, ...).
    OS_PLATFORM_NAME = 321;
    /// `OSEnvironment>>primAt:`: an environment variable's value, or nil.
    OS_ENVIRONMENT_AT = 322;
    /// `File class>>primWorkingDirectory`: the path of the process's working directory.
    FILE_WORKING_DIRECTORY = 323;
    /// `File class>>primEntry:`: `{isDirectory. size. modified (Unix seconds)}` of a path, nil if there is nothing there.
    FILE_ENTRY = 324;
    /// `File class>>primChildren:`: the names in a directory, sorted.
    FILE_CHILDREN = 325;
    /// `File class>>primCreateDirectory:parents:`: makes a directory (and its missing parents when told).
    FILE_CREATE_DIRECTORY = 326;
    /// `File class>>primDelete:`: deletes a file or an empty directory.
    FILE_DELETE = 327;
    /// `File class>>primRename:to:`: renames (moves) a file or directory.
    FILE_RENAME = 328;
    /// `File class>>primOpen:mode:`: opens a file (0 read, 1 write anew, 2 append, 3 read and write), answering its handle.
    FILE_OPEN = 329;
    /// `File class>>primClose:`: closes an open file.
    FILE_CLOSE = 330;
    /// `File class>>primRead:into:startingAt:count:`: reads up to count bytes into a byte object, answering how many (0 at the end).
    FILE_READ = 331;
    /// `File class>>primWrite:from:startingAt:count:`: writes count bytes of a byte object.
    FILE_WRITE = 332;
    /// `File class>>primPosition:`: an open file's position, from 0.
    FILE_POSITION = 333;
    /// `File class>>primSetPosition:to:`: moves an open file's position.
    FILE_SET_POSITION = 334;
    /// `File class>>primSize:`: an open file's size in bytes.
    FILE_SIZE = 335;
    /// `File class>>primSync:`: writes an open file's data through to the disk.
    FILE_SYNC = 336;

    // Sockets (340-349, `sockets.rs`): each needs a user who may change code; those that wait on
    // the network run off the VM thread and answer nil when their time limit (ms) passes.

    /// `Socket class>>primConnectTo:port:timeout:`: connects to a host (a name or an address), answering the socket's handle or a String saying why not.
    SOCKET_CONNECT = 340;
    /// `Socket class>>primListenOn:interface:`: listens on a port (0 picks one) of an interface, answering the listener's handle.
    SOCKET_LISTEN = 341;
    /// `Socket class>>primAccept:timeout:`: the handle of a connection a listener accepted, nil if none came.
    SOCKET_ACCEPT = 342;
    /// `Socket class>>primSend:from:startingAt:count:timeout:`: sends count bytes of a byte object, answering count, or a String saying why not.
    SOCKET_SEND = 343;
    /// `Socket class>>primReceive:max:timeout:`: the bytes that came (a ByteArray, empty once the peer closed), nil if none came.
    SOCKET_RECEIVE = 344;
    /// `Socket class>>primClose:`: closes a socket.
    SOCKET_CLOSE = 345;
    /// `Socket class>>primLocalPort:`: the port a socket is bound to.
    SOCKET_LOCAL_PORT = 346;
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    use super::TABLE;

    /// Every `<primitive: N>` in the `.st` files under `dir`, with where it is; text after
    /// `<primitive:` that is not a number goes into `bad`.
    fn kernel_primitives(dir: &Path, found: &mut BTreeMap<u16, String>, bad: &mut Vec<String>) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return bad.push(format!("{}: {e}", dir.display())),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                kernel_primitives(&path, found, bad);
                continue;
            }
            if path.extension().is_none_or(|e| e != "st") {
                continue;
            }
            let text = match std::fs::read(&path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    bad.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            for (at, _) in text.match_indices("<primitive:") {
                let rest = text.get(at + "<primitive:".len()..).unwrap_or("").trim_start();
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                match digits.parse::<u16>() {
                    Ok(n) => {
                        found.entry(n).or_insert_with(|| path.display().to_string());
                    }
                    Err(_) => bad.push(format!("{}: <primitive:{}", path.display(), rest.lines().next().unwrap_or(""))),
                }
            }
        }
    }

    #[test]
    fn numbers_ascend_and_names_are_unique() {
        for pair in TABLE.windows(2) {
            if let [a, b] = pair {
                assert!(a.number < b.number, "{} ({}) is not before {} ({})", a.name, a.number, b.name, b.number);
            }
        }
        let mut names = BTreeSet::new();
        for p in TABLE {
            assert!(names.insert(p.name), "{} is named twice", p.name);
        }
    }

    #[test]
    fn every_primitive_has_a_description() {
        for p in TABLE {
            assert!(!p.doc.is_empty(), "{} ({}) has no description", p.name, p.number);
        }
    }

    #[test]
    fn every_primitive_the_kernel_declares_is_named() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/kernel"));
        let (mut found, mut bad) = (BTreeMap::new(), Vec::new());
        kernel_primitives(dir, &mut found, &mut bad);
        assert!(bad.is_empty(), "unreadable kernel primitives: {bad:#?}");
        assert!(found.len() > 100, "only {} primitives found under {}", found.len(), dir.display());
        let named: BTreeSet<u16> = TABLE.iter().map(|p| p.number).collect();
        let unnamed: Vec<String> =
            found.iter().filter(|(n, _)| !named.contains(n)).map(|(n, file)| format!("{n} ({file})")).collect();
        assert!(unnamed.is_empty(), "kernel primitives without a name in primitives/table.rs: {unnamed:?}");
    }
}
