//! A job's rows, in import order (row `i` at index `i`). The one way to
//! change a row is [`Rows::get_mut`], which records it as changed, so what
//! is stored after a step is exactly what the step changed.

use std::collections::BTreeSet;

use super::Row;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    list: Vec<Row>,
    changed: BTreeSet<u32>,
}

impl Rows {
    pub fn new(list: Vec<Row>) -> Rows {
        Rows {
            list,
            changed: BTreeSet::new(),
        }
    }

    /// New rows, all to be stored.
    pub fn unsaved(list: Vec<Row>) -> Rows {
        let changed = list.iter().map(|r| r.index).collect();
        Rows { list, changed }
    }

    pub fn get(&self, index: u32) -> Option<&Row> {
        self.list.get(index as usize)
    }

    pub fn get_mut(&mut self, index: u32) -> Option<&mut Row> {
        let row = self.list.get_mut(index as usize)?;
        self.changed.insert(index);
        Some(row)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Row> {
        self.list.iter()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The indexes of the rows `keep` selects.
    pub fn select(&self, keep: impl Fn(&Row) -> bool) -> Vec<u32> {
        self.list
            .iter()
            .filter(|r| keep(r))
            .map(|r| r.index)
            .collect()
    }

    /// The rows changed since the last call, in row order.
    pub fn take_changed(&mut self) -> Vec<&Row> {
        let changed = std::mem::take(&mut self.changed);
        changed
            .into_iter()
            .filter_map(|i| self.list.get(i as usize))
            .collect()
    }

    pub fn as_slice(&self) -> &[Row] {
        &self.list
    }
}
