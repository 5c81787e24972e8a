//! How values lie in storage buffers: `PackedField` (a field element in the shaders' form),
//! `Words` (a canonical coordinate as uploaded) and `ScalarWords` (a scalar) hold their u32 words
//! grouped into vectors of four where the word count allows (two, else one), so that every point,
//! bucket, carry and scalar is read and written in 16-byte accesses. The bytes are those of
//! `array<u32, W>`.
//!
//! A software GPU runs a storage access whose address differs between lanes as a loop over the
//! lanes, one loop per access: a vec4 access moves four words per loop where a u32 access moves
//! one. Points, buckets and carries in vec4s take 29% off a warm 2^16 call there on
//! ed-on-bls12-377 and 15% on bls12-377. Hardware compilers merge
//! adjacent word accesses themselves: on navi21 the 32-bit-limb kernels compile to the same code,
//! the 13-bit ones within 0.2 % of their instructions.

/// The storage layout of the WGSL struct `name`, of `words` u32 words.
pub(super) struct StorageWords {
    name: &'static str,
    words: usize,
}

impl StorageWords {
    /// `PackedField` of `words` words.
    pub(super) fn packed_field(words: usize) -> Self {
        Self { name: "PackedField", words }
    }

    /// `Words` of `words` words.
    pub(super) fn uploaded(words: usize) -> Self {
        Self { name: "Words", words }
    }

    /// `ScalarWords` of `words` words.
    pub(super) fn scalar(words: usize) -> Self {
        Self { name: "ScalarWords", words }
    }

    /// Its number of u32 words.
    pub(super) fn len(&self) -> usize {
        self.words
    }

    /// Words per vector: the widest of 4, 2 and 1 that divides the word count.
    fn width(&self) -> usize {
        [4, 2, 1].into_iter().find(|w| self.words.is_multiple_of(*w)).expect("1 divides")
    }

    /// The WGSL type of one group of words.
    fn group_type(&self) -> String {
        match self.width() {
            1 => "u32".into(),
            w => format!("vec{w}<u32>"),
        }
    }

    /// The struct's declaration.
    pub(super) fn declaration(&self) -> String {
        format!("struct {} {{ v: array<{}, {}> }}\n", self.name, self.group_type(), self.words / self.width())
    }

    /// Word `k` of the expression `value` of this struct.
    pub(super) fn word(&self, value: &str, k: usize) -> String {
        match self.width() {
            1 => format!("{value}.v[{k}]"),
            w => format!("{value}.v[{}].{}", k / w, ['x', 'y', 'z', 'w'][k % w]),
        }
    }

    /// An expression of this struct from the word expressions `words`, lowest first.
    pub(super) fn construct(&self, words: &[String]) -> String {
        assert_eq!(words.len(), self.words, "{} takes every word", self.name);
        let (w, ty) = (self.width(), self.group_type());
        let groups: Vec<String> = match w {
            1 => words.to_vec(),
            _ => words.chunks(w).map(|g| format!("{ty}({})", g.join(", "))).collect(),
        };
        format!("{}(array<{ty}, {}>({}))", self.name, groups.len(), groups.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::StorageWords;

    #[test]
    fn groups_words_in_the_widest_vectors_that_divide_them() {
        let eight = StorageWords::packed_field(8);
        assert_eq!(eight.declaration(), "struct PackedField { v: array<vec4<u32>, 2> }\n");
        assert_eq!(eight.word("p", 5), "p.v[1].y");
        let words: Vec<String> = (0..8).map(|k| format!("a{k}")).collect();
        assert_eq!(
            eight.construct(&words),
            "PackedField(array<vec4<u32>, 2>(vec4<u32>(a0, a1, a2, a3), vec4<u32>(a4, a5, a6, a7)))"
        );
        let ten = StorageWords::packed_field(10);
        assert_eq!(ten.declaration(), "struct PackedField { v: array<vec2<u32>, 5> }\n");
        assert_eq!(ten.word("p", 9), "p.v[4].y");
        let fifteen = StorageWords::packed_field(15);
        assert_eq!(fifteen.declaration(), "struct PackedField { v: array<u32, 15> }\n");
        assert_eq!(fifteen.word("p", 14), "p.v[14]");
        assert_eq!(StorageWords::uploaded(12).declaration(), "struct Words { v: array<vec4<u32>, 3> }\n");
    }
}
