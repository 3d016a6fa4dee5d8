//! The job and its rows as the page holds them: read a page at a time,
//! kept current by the job's live feed.

use crate::api::{Client, ClientError};
use api::jobs::{Job, JobUpdate, MAX_PAGE_ROWS, RowView};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::HashSet;

/// The job and its rows, as the page holds them.
#[derive(Clone, Copy)]
pub struct Held {
    pub job: RwSignal<Option<Job>>,
    /// By row index; `None` until its page (or the feed) brought it.
    pub rows: RwSignal<Vec<Option<RowView>>>,
    /// Rows the feed brought during a load: a page read before must not undo them.
    fed: StoredValue<HashSet<u32>>,
    pub error: RwSignal<Option<ClientError>>,
}

impl Held {
    /// Nothing yet: `load` reads it.
    pub fn new() -> Held {
        Held {
            job: RwSignal::new(None),
            rows: RwSignal::new(Vec::new()),
            fed: StoredValue::new(HashSet::new()),
            error: RwSignal::new(None),
        }
    }

    /// Takes a copy of the job unless the page holds a newer one (an
    /// action's answer can arrive after the feed's later news).
    pub fn keep(self, job: Job) {
        let older = self
            .job
            .with_untracked(|held| held.as_ref().is_some_and(|h| h.revision > job.revision));
        if !older {
            self.job.set(Some(job));
        }
    }

    fn size(self, total: u32) {
        self.rows.update(|r| {
            if r.len() < total as usize {
                r.resize(total as usize, None);
            }
        });
    }

    pub fn take_update(self, update: JobUpdate) {
        self.size(update.job.counts.total);
        self.fed
            .update_value(|f| f.extend(update.rows.iter().map(|r| r.index)));
        if !update.rows.is_empty() {
            self.rows.update(|r| {
                for row in update.rows {
                    if let Some(slot) = r.get_mut(row.index as usize) {
                        *slot = Some(row);
                    }
                }
            });
        }
        self.keep(update.job);
    }

    /// Reads the job, then every row, a page at a time.
    pub fn load(self, client: Client, id: String) {
        self.fed.set_value(HashSet::new());
        spawn_local(async move {
            let job = match client.job(id.clone()).await {
                Ok(job) => job,
                Err(e) => return self.error.set(Some(e)),
            };
            self.error.set(None);
            let total = job.counts.total;
            self.size(total);
            self.keep(job);
            let mut offset = 0;
            while offset < total {
                match client.job_rows(id.clone(), offset, MAX_PAGE_ROWS).await {
                    Ok(page) => {
                        let fed = self.fed.get_value();
                        self.rows.update(|r| {
                            for row in page.rows {
                                let i = row.index as usize;
                                if !fed.contains(&row.index) && i < r.len() {
                                    r[i] = Some(row);
                                }
                            }
                        });
                    }
                    Err(e) => return self.error.set(Some(e)),
                }
                offset += MAX_PAGE_ROWS;
            }
        });
    }
}
